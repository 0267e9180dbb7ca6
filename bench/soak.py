"""bench/soak.sh's load, faults and measurements (see soak.sh for what it prints and why).

Runs under the system python3 (/usr/bin/python3), which has Debian's python3-libnbd.

  soak.py SPEC_JSON

SPEC_JSON (written by soak.sh) names the pristine image, the exports (URI, transport, FEC or not),
the servers (pid, metrics URL), the files corruption may be written into with their pristine
copies and tree layout, the duration and the knobs. One process drives: it starts 8 client
processes (libnbd, each a loop of sessions: connect over TCP or the Unix socket, structured or
simple replies, a mix of 4 KiB random, 128 KiB sequential, 1 MiB and unaligned reads at queue depth
1 or 8, then disconnect), kills some of them in the middle of a read, and runs three threads: the
corruptor (writes random bytes into the data, hash and FEC files under the servers, restores them
from the pristine copies after a while), the vanishing raw-socket clients (handshake, a read, gone
before the reply) and the sampler (heap, RSS, open files, threads, metrics every few seconds).
Every byte a successful read returns is compared with the pristine image.
"""

import collections
import errno
import json
import multiprocessing
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

KIB = 1024
MIB = 1024 * KIB

# Kinds of read a client makes: (name, weight). Offsets: random aligned, a sequential cursor,
# random 1 MiB-aligned-or-not, random unaligned (the server's edge path).
KINDS = [("4k-random", 55), ("128k-seq", 25), ("1m", 12), ("unaligned", 8)]

# Worker states, in a shared array the killer looks at (it kills clients in the middle of a read).
IDLE, READING, READING_1M = 0, 1, 2


def log(msg):
    print(msg, flush=True)


# ---- shared state between the driver and the clients ---------------------------------------------


class Shared:
    """Shared memory the clients and the driver both see (written by one side each, no locks)."""

    def __init__(self, workers):
        self.stop = multiprocessing.RawValue("i", 0)
        # The corruptor counts corruptions started and active (bumped before the bytes are written,
        # lowered after they are restored): a failure when none was active from before a request
        # until after it is not explained by corruption.
        self.started = multiprocessing.RawValue("q", 0)
        self.active = multiprocessing.RawValue("q", 0)
        self.hot = multiprocessing.RawArray("q", 8)  # data offsets near recent corruptions
        self.state = multiprocessing.RawArray("i", workers)
        self.since = multiprocessing.RawArray("d", workers)  # when the current request began

    def fault_snapshot(self):
        return self.started.value, self.active.value


def nbd_errno_name(e):
    if e.errno is not None:
        return errno.errorcode.get(e.errno, str(e.errno)).lower()
    s = (e.string or "").lower()
    if "disconnect" in s or "closed" in s or "eof" in s:
        return "disconnected"
    return "error:" + (e.string or "?")[:60]


# ---- the clients ---------------------------------------------------------------------------------


class Stats:
    """One client process's counts, written atomically to its own file (a kill loses the last
    half second of counts, never a wrong byte: those are written at once)."""

    def __init__(self, path):
        self.path = path
        self.c = collections.Counter()
        self.last = 0.0

    def add(self, key, n=1):
        self.c[key] += n

    def flush(self, force=False):
        now = time.monotonic()
        if not force and now - self.last < 0.5:
            return
        self.last = now
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.c, f)
        os.replace(tmp, self.path)


def client(wid, gen, spec, shared, seed):
    import mmap

    import nbd

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides when clients stop
    parent = os.getppid()

    def stopping():  # told to, or the driver is gone (a client never outlives the run)
        return shared.stop.value or os.getppid() != parent
    rnd = random.Random(seed)
    stats = Stats(os.path.join(spec["work"], "stats", f"w{wid}-g{gen}.json"))
    wrong_log = os.path.join(spec["work"], "wrong.log")
    with open(spec["pristine"], "rb") as f:
        pristine = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    size = len(pristine)
    exports = spec["exports"]
    kinds = [k for k, _ in KINDS]
    weights = [w for _, w in KINDS]

    def check(export, offset, data, snap, kind, mode):
        """Compares a successful read with the pristine image; a difference is written at once."""
        stats.add("ok")
        stats.add(f"bytes_ok", len(data))
        compare(export, offset, data, snap, kind, mode)

    def compare(export, offset, data, snap, kind, mode, what="read"):
        want = pristine[offset : offset + len(data)]
        if data == want:
            return
        wrong = sum(1 for a, b in zip(data, want) if a != b)
        first = next(i for i, (a, b) in enumerate(zip(data, want)) if a != b)
        line = (
            f"WRONG {wrong} bytes: {export['name']} ({export['transport']}, {mode}) {kind} {what} "
            f"offset {offset} length {len(data)}, first at {offset + first}; "
            f"corruptions started/active before {snap}\n"
        )
        fd = os.open(wrong_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.write(fd, line.encode())
        os.close(fd)
        stats.add("wrong_bytes", wrong)
        stats.add("wrong_reads")
        stats.flush(force=True)

    def failed(export, e, snap, kind):
        cause = nbd_errno_name(e)
        stats.add(f"fail:{cause}")
        after = shared.fault_snapshot()
        if snap[1] == 0 and after[1] == 0 and snap[0] == after[0]:
            # No corruption was in the files from before this request until after it.
            stats.add(f"unexplained:{cause}")
            fd = os.open(wrong_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            os.write(
                fd,
                f"UNEXPLAINED {cause}: {export['name']} ({export['transport']}) {kind}: "
                f"{e.string}\n".encode(),
            )
            os.close(fd)
        return cause

    def pick(kind, cursor):
        if kind == "4k-random":
            return rnd.randrange(size // 4096) * 4096, 4096, cursor
        if kind == "128k-seq":
            n = 128 * KIB
            if cursor + n > size:
                cursor = 0
            return cursor, n, cursor + n
        if kind == "1m":
            n = min(MIB, size)
            return rnd.randrange(size - n + 1) & ~511, n, cursor
        n = rnd.randrange(1, 3 * 4096)
        return rnd.randrange(size - n + 1), n, cursor

    def near_hot(kind, off, n):
        """One read in five goes where a corruption was written recently."""
        if rnd.random() < 0.2:
            h = shared.hot[rnd.randrange(len(shared.hot))]
            if h > 0:
                span = max(n, 128 * KIB)
                off = min(max(0, h - rnd.randrange(span)), size - n)
                if kind != "unaligned":
                    off &= ~4095
        return off

    while not stopping():
        export = exports[rnd.randrange(len(exports))]
        structured = rnd.random() < 0.5
        mode = "structured" if structured else "simple"
        qd = 8 if rnd.random() < 0.3 else 1
        chunked = rnd.random() < 0.5  # structured, QD 1: through pread_structured's chunk callback
        h = nbd.NBD()
        try:
            h.set_request_structured_replies(structured)
            h.connect_uri(export["uri"])
        except nbd.Error as e:
            stats.add(f"connect-fail:{nbd_errno_name(e)}")
            stats.flush(force=True)
            time.sleep(0.2)
            continue
        stats.add("sessions")
        how = mode + ("+chunks" if structured and chunked and qd == 1 else "")
        stats.add(f"sessions:{export['transport']}:{export['name']}:{how}:qd{qd}")
        cursor = rnd.randrange(size // (128 * KIB)) * 128 * KIB
        requests = rnd.randrange(10, 300)
        broken = False
        try:
            if qd == 1:
                for _ in range(requests):
                    if stopping():
                        break
                    kind = rnd.choices(kinds, weights)[0]
                    off, n, cursor = pick(kind, cursor)
                    off = near_hot(kind, off, n)
                    snap = shared.fault_snapshot()
                    stats.add("requests")
                    stats.add(f"req:{kind}")
                    shared.state[wid] = READING_1M if n >= MIB else READING
                    shared.since[wid] = time.monotonic()
                    try:
                        if structured and chunked:
                            # Each chunk as it comes, also those before a failed block: the bytes
                            # a structured reply sends ahead of its error must be the image's too.
                            def chunk(subbuf, coff, status, _error, export=export, snap=snap, kind=kind):
                                if status in (nbd.READ_DATA, nbd.READ_HOLE):
                                    stats.add("chunks")
                                    stats.add("chunk_bytes", len(subbuf))
                                    compare(export, coff, bytes(subbuf), snap, kind, mode, "chunk")
                                elif status == nbd.READ_ERROR:
                                    stats.add("error_chunks")
                                return 0

                            data = h.pread_structured(n, off, chunk)
                        else:
                            data = h.pread(n, off)
                    except nbd.Error as e:
                        if failed(export, e, snap, kind) != "eio":
                            broken = True
                            break
                    else:
                        check(export, off, data, snap, kind, mode)
                    finally:
                        shared.state[wid] = IDLE
                    stats.flush()
            else:
                inflight = {}
                issued = 0
                while (issued < requests and not stopping()) or inflight:
                    while issued < requests and len(inflight) < qd and not stopping():
                        kind = rnd.choices(kinds, weights)[0]
                        off, n, cursor = pick(kind, cursor)
                        off = near_hot(kind, off, n)
                        buf = nbd.Buffer(n)
                        snap = shared.fault_snapshot()
                        cookie = h.aio_pread(buf, off)
                        inflight[cookie] = (buf, off, kind, snap)
                        issued += 1
                        stats.add("requests")
                        stats.add(f"req:{kind}")
                    shared.state[wid] = READING_1M
                    shared.since[wid] = time.monotonic()
                    h.poll(-1)
                    for cookie in list(inflight):
                        buf, off, kind, snap = inflight[cookie]
                        try:
                            done = h.aio_command_completed(cookie)
                        except nbd.Error as e:
                            del inflight[cookie]
                            if failed(export, e, snap, kind) != "eio":
                                broken = True
                            continue
                        if done:
                            del inflight[cookie]
                            check(export, off, bytes(buf.to_bytearray()), snap, kind, mode)
                    shared.state[wid] = IDLE
                    stats.flush()
                    if broken:
                        break
        except nbd.Error as e:
            stats.add(f"session-error:{nbd_errno_name(e)}")
            broken = True
        finally:
            shared.state[wid] = IDLE
        try:
            if not broken:
                h.shutdown()
        except nbd.Error:
            pass
        del h  # closes the connection (libnbd 1.14's Python binding has no close())
        stats.flush()
    stats.flush(force=True)


# ---- clients that vanish: raw sockets ------------------------------------------------------------

NBD_MAGIC = 0x4E42444D41474943
IHAVEOPT = 0x49484156454F5054
OPT_EXPORT_NAME, OPT_STRUCTURED_REPLY = 1, 8
REP_MAGIC = 0x3E889045565A9
REQUEST_MAGIC = 0x25609513


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        chunk = s.recv(n - len(b))
        if not chunk:
            raise EOFError(f"server closed after {len(b)} of {n} bytes")
        b += chunk
    return b


def raw_connect(export):
    if export["transport"] == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(export["socket"])
    else:
        s = socket.create_connection((export["host"], export["port"]), timeout=10)
    return s


def raw_handshake(s, export, structured):
    magic, opt, _flags = struct.unpack(">QQH", recv_exact(s, 18))
    if magic != NBD_MAGIC or opt != IHAVEOPT:
        raise ValueError("not a fixed newstyle server")
    s.sendall(struct.pack(">I", 1 | 2))  # FIXED_NEWSTYLE | NO_ZEROES
    if structured:
        s.sendall(struct.pack(">QII", IHAVEOPT, OPT_STRUCTURED_REPLY, 0))
        rmagic, _o, rtype, rlen = struct.unpack(">QIII", recv_exact(s, 20))
        recv_exact(s, rlen)
        if rmagic != REP_MAGIC or rtype != 1:
            raise ValueError(f"structured reply refused: {rtype}")
    name = export["name"].encode()
    s.sendall(struct.pack(">QII", IHAVEOPT, OPT_EXPORT_NAME, len(name)) + name)
    size, _tflags = struct.unpack(">QH", recv_exact(s, 10))
    return size


def read_request(cookie, offset, length):
    return struct.pack(">IHHQQI", REQUEST_MAGIC, 0, 0, cookie, offset, length)


VANISH_WAYS = ["mid-handshake", "after-read", "after-read-structured", "mid-reply", "reset", "half-request"]


def vanisher(spec, shared, counts, errors, rnd):
    exports = spec["exports"]
    while not shared.stop.value:
        time.sleep(rnd.uniform(0.05, 0.4))
        export = exports[rnd.randrange(len(exports))]
        way = rnd.choice(VANISH_WAYS)
        try:
            s = raw_connect(export)
            try:
                if way == "mid-handshake":
                    recv_exact(s, 18)
                else:
                    size = raw_handshake(s, export, way == "after-read-structured")
                    n = min(MIB, size)
                    off = rnd.randrange(size - n + 1) & ~4095
                    req = read_request(rnd.getrandbits(63), off, n)
                    if way == "half-request":
                        s.sendall(req[:14])
                    else:
                        s.sendall(req)
                        if way == "mid-reply":
                            # A simple reply: its header, then (no error) some of the data. A
                            # corrupted block's reply is the header alone, with EIO.
                            magic, err, _cookie = struct.unpack(">IIQ", recv_exact(s, 16))
                            if magic != 0x67446698:
                                raise ValueError(f"reply magic {magic:#x}")
                            if err == 0:
                                recv_exact(s, rnd.randrange(1, 64 * KIB))
                        elif way == "reset":
                            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            finally:
                s.close()
            counts[way] += 1
        except (OSError, EOFError, ValueError) as e:
            errors[f"{way}: {type(e).__name__}: {e}"[:120]] += 1


# ---- corruption under the running servers --------------------------------------------------------


class Corruptor:
    """Writes random bytes into the served files at random moments and places, and restores each
    range from the file's pristine copy after a while (so every file is as formatted at the end)."""

    def __init__(self, spec, shared, rnd):
        self.targets = spec["targets"]
        self.shared = shared
        self.rnd = rnd
        self.max_active = spec["max_active"]
        self.active = []  # (until, target, offset, length)
        self.counts = collections.Counter()
        self.fds = {t["file"]: os.open(t["file"], os.O_RDWR) for t in self.targets}
        self.pristine = {t["file"]: os.open(t["pristine"], os.O_RDONLY) for t in self.targets}
        self.hot_next = 0

    def hot_offset(self, t, offset):
        """The data offset a corruption at `offset` of target t affects (0: none known)."""
        if t["kind"] == "data":
            return offset
        if t["kind"] == "hash":
            for lv in t["levels"]:
                if lv["offset"] <= offset < lv["offset"] + lv["size"]:
                    j = (offset - lv["offset"]) // t["hash_block_size"]
                    span = t["fanout"] ** (lv["level"] + 1)
                    return j * span * t["data_block_size"]
        return 0

    def start(self):
        t = self.rnd.choices(self.targets, [x["weight"] for x in self.targets])[0]
        lo, hi = t["from"], t["to"]
        shape = self.rnd.random()
        if shape < 0.4:
            length = 1
        elif shape < 0.8:
            length = self.rnd.randrange(2, 65)
        else:
            length = 4096  # a whole block
        length = min(length, hi - lo)
        offset = self.rnd.randrange(lo, hi - length + 1)
        if length == 4096:
            offset = lo + (offset - lo) // 4096 * 4096
        orig = os.pread(self.pristine[t["file"]], length, offset)
        bad = bytes(b ^ (self.rnd.randrange(255) + 1) for b in orig)  # every byte changes
        self.shared.started.value += 1
        self.shared.active.value += 1
        os.pwrite(self.fds[t["file"]], bad, offset)
        hold = self.rnd.uniform(0.2, 2.5)
        self.active.append((time.monotonic() + hold, t, offset, length))
        self.counts[f"{t['label']}"] += 1
        self.counts["bytes"] += length
        h = self.hot_offset(t, offset)
        if h > 0:
            self.shared.hot[self.hot_next % len(self.shared.hot)] = h
            self.hot_next += 1

    def restore(self, entry):
        _until, t, offset, length = entry
        os.pwrite(self.fds[t["file"]], os.pread(self.pristine[t["file"]], length, offset), offset)
        self.active.remove(entry)
        self.shared.active.value -= 1
        self.counts["restored"] += 1

    def run(self):
        while not self.shared.stop.value:
            time.sleep(self.rnd.uniform(0.02, 0.3))
            now = time.monotonic()
            for entry in [e for e in self.active if e[0] <= now]:
                self.restore(entry)
            if len(self.active) < self.max_active:
                self.start()
        self.restore_all()

    def restore_all(self):
        for entry in list(self.active):
            self.restore(entry)
        for t in self.targets:  # whatever happened, the files end as formatted
            with open(t["file"], "rb") as a, open(t["pristine"], "rb") as b:
                while True:
                    x, y = a.read(MIB), b.read(MIB)
                    if x != y:
                        raise SystemExit(f"soak: {t['file']} differs from its pristine copy after restoring")
                    if not x:
                        break


# ---- what the servers hold -----------------------------------------------------------------------


def proc_status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
                out[k] = int(v.split()[0]) / 1024  # MiB
            elif k == "Threads":
                out[k] = int(v)
    out["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
    return out


def thread_names(pid):
    """The server's threads by name (/proc/PID/task/*/comm: no attach), counted."""
    names = collections.Counter()
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                names[f.read().strip()] += 1
        except OSError:
            pass  # it ended meanwhile
    return names


def fd_targets(pid):
    """The server's open files by what they are (socket, pipe, anon_inode, a path), counted."""
    kinds = collections.Counter()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            t = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        kinds[t.split(":")[0] if ":" in t else t] += 1
    return kinds


class Jstat:
    """Heap used and committed (MiB) and the full collections so far of one server, from one
    `jstat -gc PID 500` for the whole run (perf data: no attach, so no thread or socket is added
    to the server; one JVM started once, not per sample)."""

    def __init__(self, jdk, pid):
        self.proc = subprocess.Popen(
            [os.path.join(jdk, "bin", "jstat"), "-gc", str(pid), "500"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        self.latest = None
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        header = None
        for line in self.proc.stdout:
            cols = line.split()
            if not cols:
                continue
            if cols[0] == "S0C":
                header = cols
                continue
            if header is None:
                continue
            row = dict(zip(header, cols))
            f = lambda k: float(row.get(k, "0").replace("-", "0") or 0)
            self.latest = {
                "heap_used": (f("S0U") + f("S1U") + f("EU") + f("OU")) / 1024,
                "heap_committed": (f("S0C") + f("S1C") + f("EC") + f("OC")) / 1024,
                "old_used": f("OU") / 1024,
                "fgc": int(f("FGC")),
            }
            self.ready.set()

    def get(self):
        self.ready.wait(60)
        return dict(self.latest or {})

    def close(self):
        self.proc.kill()
        self.proc.wait()


def class_histogram(jdk, pid):
    """Live objects by class: {class: (instances, bytes)} (jcmd attaches: an Attach Listener
    thread and its socket stay in the server, so this runs before the baseline is taken)."""
    out = subprocess.run(
        [os.path.join(jdk, "bin", "jcmd"), str(pid), "GC.class_histogram"],
        capture_output=True, text=True, timeout=120,
    ).stdout
    h = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 4 and f[0].endswith(":") and f[1].isdigit() and f[2].isdigit():
            h[f[3]] = (int(f[1]), int(f[2]))
    return h


def metrics(url):
    try:
        text = urllib.request.urlopen(url, timeout=10).read().decode()
    except OSError:
        return {}
    m = collections.Counter()
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        name_labels, _, value = line.rpartition(" ")
        name = name_labels.split("{")[0]
        try:
            v = float(value)
        except ValueError:
            continue
        m[name] += v
        if name == "jverity_nbd_requests_total":
            result = name_labels.split('result="')[1].split('"')[0]
            m[f"requests:{result}"] += v
    return m


def sample(spec, server):
    s = proc_status(server["pid"])
    s.update(server["jstat"].get())
    m = metrics(server["metrics"])
    s["conns"] = m.get("jverity_nbd_connections_open", float("nan"))
    s["requests"] = m.get("jverity_nbd_requests_total", 0)
    return s


def sampler(spec, shared, series, t0, every):
    while not shared.stop.value:
        t = time.monotonic() - t0
        for server in spec["servers"]:
            try:
                s = sample(spec, server)
            except Exception as e:  # a sample missed is said, the run goes on
                log(f"  t={t:6.1f}s {server['label']:5} no sample: {type(e).__name__}: {e}")
                continue
            s["t"] = t
            series[server["label"]].append(s)
            log(
                f"  t={t:6.1f}s {server['label']:5} heap used {s.get('heap_used', 0):6.1f} MiB "
                f"(committed {s.get('heap_committed', 0):6.1f}, old {s.get('old_used', 0):5.1f})  "
                f"RSS {s['VmRSS']:6.1f} MiB (anon {s['RssAnon']:6.1f})  fds {s['fds']:4}  "
                f"threads {s['Threads']:3}  connections {s['conns']:3.0f}"
            )
        for _ in range(int(every * 10)):
            if shared.stop.value:
                break
            time.sleep(0.1)


def full_collections(spec):
    return {s["label"]: s["jstat"].get().get("fgc", 0) for s in spec["servers"]}


def wait_quiet(spec, servers_fgc, timeout):
    """Waits until no connection is open and each server ran its idle collection (IdleHeap: 10 s
    after the last client left), so the heap figure is what is live. Returns seconds waited."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        ok = True
        for server in spec["servers"]:
            m = metrics(server["metrics"])
            j = server["jstat"].get()
            if m.get("jverity_nbd_connections_open", 1) != 0 or j.get("fgc", 0) <= servers_fgc[server["label"]]:
                ok = False
        if ok:
            return time.monotonic() - t0
        time.sleep(0.5)
    return None


def settle(spec, baseline, timeout):
    """Waits until each server's open files and threads are back to the baseline (pools shrink on
    their own: hashing threads after 5 s idle, the JIT's and the virtual threads' carriers later);
    returns the last figures and seconds waited."""
    t0 = time.monotonic()
    while True:
        now = {s["label"]: proc_status(s["pid"]) for s in spec["servers"]}
        back = all(
            now[l]["fds"] <= baseline[l]["fds"] and now[l]["Threads"] <= baseline[l]["Threads"] for l in now
        )
        if back or time.monotonic() - t0 >= timeout:
            return now, time.monotonic() - t0
        time.sleep(0.5)


# ---- one pass over every export after the files are restored ------------------------------------


def final_pass(spec):
    import nbd

    with open(spec["pristine"], "rb") as f:
        pristine_all = f.read()
    failures = collections.Counter()
    wrong = 0
    total = 0
    for export in spec["exports"]:
        h = nbd.NBD()
        h.connect_uri(export["uri"])
        size = h.get_size()
        for off in range(0, size, MIB):
            n = min(MIB, size - off)
            try:
                data = h.pread(n, off)
            except nbd.Error as e:
                failures[f"{export['transport']}/{export['name']}:{nbd_errno_name(e)}"] += 1
                continue
            total += n
            if data != pristine_all[off : off + n]:
                wrong += sum(1 for a, b in zip(data, pristine_all[off : off + n]) if a != b)
        h.shutdown()
        del h
    return total, failures, wrong


# ---- the run ------------------------------------------------------------------------------------


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def thirds(series, key):
    xs = [s[key] for s in series if key in s]
    k = max(1, len(xs) // 3)
    return mean(xs[:k]), mean(xs[-k:]), len(xs)


def exports_of(uris):
    """The exports from their URIs: nbd://HOST:PORT/NAME or nbd+unix:///NAME?socket=PATH."""
    out = []
    for uri in uris:
        u = urllib.parse.urlsplit(uri)
        e = {"uri": uri, "name": u.path.lstrip("/")}
        if u.scheme == "nbd+unix":
            e["transport"] = "unix"
            e["socket"] = urllib.parse.parse_qs(u.query)["socket"][0]
        else:
            e["transport"] = "tcp"
            e["host"], e["port"] = u.hostname, u.port
        out.append(e)
    return out


def targets_of(images):
    """Where corruption may be written: each image's data file (all of it), its hash file past the
    superblock (the tree: the superblock is read once, at start), its FEC file (all of it)."""
    out = []
    for im in images:
        layout = json.load(open(im["layout"]))
        out.append(dict(label=f"{im['label']} data", kind="data", file=im["data"], pristine=im["pristine_data"],
                        weight=45, **{"from": 0, "to": layout["dataSize"]}))
        out.append(dict(label=f"{im['label']} hash", kind="hash", file=im["hash"], pristine=im["pristine_hash"],
                        weight=40, levels=layout["levels"], hash_block_size=layout["hashBlockSize"],
                        data_block_size=layout["dataBlockSize"], fanout=layout["hashBlockSize"] // 32,
                        **{"from": layout["hashStart"], "to": layout["hashDeviceSize"]}))
        if im.get("fec"):
            out.append(dict(label=f"{im['label']} fec", kind="fec", file=im["fec"], pristine=im["pristine_fec"],
                            weight=15, **{"from": 0, "to": layout["fec"]["size"]}))
    return out


def exit_with_parent(shared):
    """soak.sh gone (killed by a test's timeout): stop the clients and go too."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    shared.stop.value = 1
    os._exit(1)


def main():
    spec = json.load(open(sys.argv[1]))
    spec["exports"] = exports_of(spec["uris"])
    spec["targets"] = targets_of(spec["images"])
    seed = spec["seed"]
    rnd = random.Random(seed)
    workers = spec["workers"]
    duration = spec["minutes"] * 60
    os.makedirs(os.path.join(spec["work"], "stats"), exist_ok=True)
    shared = Shared(workers)
    ctx = multiprocessing.get_context("fork")
    threading.Thread(target=exit_with_parent, args=(shared,), daemon=True).start()

    for s in spec["servers"]:
        s["jstat"] = Jstat(spec["jdk"], s["pid"])
    # Before any client: what each server holds at rest.
    start = {s["label"]: proc_status(s["pid"]) for s in spec["servers"]}
    start_names = {s["label"]: thread_names(s["pid"]) for s in spec["servers"]}
    for label, s in start.items():
        log(f"{label}: before any client: fds {s['fds']}, threads {s['Threads']}, RSS {s['VmRSS']:.1f} MiB (anon {s['RssAnon']:.1f})")

    # A warm-up without faults, then the idle collection: the baseline heap is what is live then.
    log(f"warm-up: {spec['warmup']} s of reads, no faults; then wait for the idle collection")
    procs = [ctx.Process(target=client, args=(i, 0, spec, shared, seed * 1000 + i)) for i in range(workers)]
    for p in procs:
        p.start()
    time.sleep(spec["warmup"])
    shared.stop.value = 1
    for p in procs:
        p.join(60)
    shared.stop.value = 0
    waited = wait_quiet(spec, full_collections(spec), 40)
    # The metrics endpoint's pool (the Prometheus HTTP server's: 10 threads, one started per scrape
    # until there are 10, kept for good) is full before the baseline, whatever the warm-up scraped.
    for s in spec["servers"]:
        for _ in range(12):
            metrics(s["metrics"])
    histo0 = {s["label"]: class_histogram(spec["jdk"], s["pid"]) for s in spec["servers"]}
    base = {}
    for s in spec["servers"]:
        base[s["label"]] = dict(proc_status(s["pid"]), **s["jstat"].get())
        base[s["label"]]["names"] = thread_names(s["pid"])
        base[s["label"]]["fd_kinds"] = fd_targets(s["pid"])
        b = base[s["label"]]
        log(
            f"{s['label']}: after warm-up and idle collection ({'%.0f s' % waited if waited is not None else 'no idle collection seen in 40 s'}): "
            f"live heap {b.get('heap_used', 0):.1f} MiB, RSS {b['VmRSS']:.1f} MiB (anon {b['RssAnon']:.1f}), fds {b['fds']}, threads {b['Threads']}"
        )
        added = b["names"] - start_names[s["label"]]
        if added:
            log(f"{s['label']}: threads started by the warm-up (kept: the baseline): {dict(added)}")
    # The warm-up's counts are not the soak's.
    for name in os.listdir(os.path.join(spec["work"], "stats")):
        os.rename(os.path.join(spec["work"], "stats", name), os.path.join(spec["work"], "warmup-" + name))
    m0 = {s["label"]: metrics(s["metrics"]) for s in spec["servers"]}

    log(f"soak: {spec['minutes']} min, {workers} clients, seed {seed}; samples every {spec['sample']} s")
    t0 = time.monotonic()
    series = collections.defaultdict(list)
    vanished, vanish_errors = collections.Counter(), collections.Counter()
    corruptor = Corruptor(spec, shared, random.Random(seed + 1))
    threads = [
        threading.Thread(target=corruptor.run, name="corruptor", daemon=True),
        threading.Thread(target=vanisher, args=(spec, shared, vanished, vanish_errors, random.Random(seed + 2)), name="vanisher", daemon=True),
        threading.Thread(target=sampler, args=(spec, shared, series, t0, spec["sample"]), name="sampler", daemon=True),
    ]
    for t in threads:
        t.start()
    gens = [0] * workers
    procs = [ctx.Process(target=client, args=(i, 0, spec, shared, seed * 1000 + i)) for i in range(workers)]
    for p in procs:
        p.start()
    killed = collections.Counter()
    hung = []
    next_kill = time.monotonic() + rnd.uniform(1, spec["kill_every"])
    while time.monotonic() - t0 < duration:
        time.sleep(0.05)
        now = time.monotonic()
        for i in range(workers):  # a request that never ends is a hang: report it
            if shared.state[i] != IDLE and now - shared.since[i] > spec["hang_s"] and i not in hung:
                hung.append(i)
                log(f"HANG: client {i} has waited {now - shared.since[i]:.0f} s for a reply")
        if now >= next_kill:
            reading = [i for i in range(workers) if shared.state[i] == READING_1M] or [
                i for i in range(workers) if shared.state[i] == READING
            ]
            if reading or now >= next_kill + 1:
                i = rnd.choice(reading) if reading else rnd.randrange(workers)
                killed["mid-read" if reading else "between requests"] += 1
                try:
                    os.kill(procs[i].pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass  # it had ended (it failed: its error is on stderr)
                procs[i].join()
                shared.state[i] = IDLE
                gens[i] += 1
                procs[i] = ctx.Process(target=client, args=(i, gens[i], spec, shared, seed * 1000 + 100 * gens[i] + i))
                procs[i].start()
                next_kill = now + rnd.uniform(0.5, spec["kill_every"])
    shared.stop.value = 1
    for p in procs:
        p.join(spec["hang_s"])
        if p.is_alive():
            hung.append(p.pid)
            p.kill()
            p.join()
    for t in threads:
        t.join()
    soak_s = time.monotonic() - t0

    totals = collections.Counter()
    for name in os.listdir(os.path.join(spec["work"], "stats")):
        if name.endswith(".json"):
            totals.update(json.load(open(os.path.join(spec["work"], "stats", name))))
    wrong_lines = []
    if os.path.exists(os.path.join(spec["work"], "wrong.log")):
        wrong_lines = open(os.path.join(spec["work"], "wrong.log")).read().splitlines()

    log("final pass: every export read whole after the files were restored")
    fp_bytes, fp_failures, fp_wrong = final_pass(spec)
    log(f"  {fp_bytes / MIB:.0f} MiB read, failures {dict(fp_failures) or 0}, wrong bytes {fp_wrong}")

    waited = wait_quiet(spec, full_collections(spec), 40)
    end_live = {s["label"]: s["jstat"].get() for s in spec["servers"]}
    histo1 = {s["label"]: class_histogram(spec["jdk"], s["pid"]) for s in spec["servers"]}
    end, settle_s = settle(spec, base, spec["settle_s"])
    m1 = {s["label"]: metrics(s["metrics"]) for s in spec["servers"]}

    # ---- report ----
    fails = {k[5:]: v for k, v in totals.items() if k.startswith("fail:")}
    unexplained = {k[12:]: v for k, v in totals.items() if k.startswith("unexplained:")}
    other = {k: v for k, v in totals.items() if k.startswith(("connect-fail:", "session-error:"))}
    # From the log, written before anything else: a client killed right after still counts.
    wrong_bytes = sum(int(l.split()[1]) for l in wrong_lines if l.startswith("WRONG ")) + fp_wrong
    log("")
    log(f"requests: {totals['requests']} in {soak_s:.0f} s ({totals['requests'] / soak_s:.0f}/s), "
        f"{totals['sessions']} sessions; " + ", ".join(f"{k[4:]} {v}" for k, v in sorted(totals.items()) if k.startswith("req:")))
    log("sessions: " + ", ".join(f"{k[9:]} {v}" for k, v in sorted(totals.items()) if k.startswith("sessions:")))
    log(f"succeeded: {totals['ok']} ({totals['bytes_ok'] / MIB:.0f} MiB compared with the pristine image); "
        f"structured reply chunks compared as they came: {totals['chunks']} ({totals['chunk_bytes'] / MIB:.0f} MiB), "
        f"error chunks {totals['error_chunks']}")
    log(f"failures by cause: {fails or 'none'}; unexplained by corruption (none active from before to after): {unexplained or 'none'}")
    log(f"connection failures: {other or 'none'}")
    log(f"wrong bytes: {wrong_bytes} ({totals.get('wrong_reads', 0)} reads)")
    for line in wrong_lines[:20]:
        log("  " + line)
    log(f"clients killed: {dict(killed)}; vanished (raw sockets): {dict(vanished)}" + (f"; raw client errors: {dict(vanish_errors)}" if vanish_errors else ""))
    log(f"hung requests: {len(hung)}")
    log(f"corruptions written: {corruptor.counts['bytes']} bytes in "
        + ", ".join(f"{k} {v}" for k, v in sorted(corruptor.counts.items()) if k not in ("bytes", "restored"))
        + f"; restored {corruptor.counts['restored']}")
    corrected = corrupted = 0
    for s in spec["servers"]:
        l = s["label"]
        d = lambda k: m1[l].get(k, 0) - m0[l].get(k, 0)
        corrected += d("jverity_nbd_export_fec_corrections_total")
        corrupted += d("jverity_nbd_export_corruptions_total")
        log(
            f"{l}: server counted {d('jverity_nbd_requests_total'):.0f} requests (ok {d('requests:ok'):.0f}, "
            f"eio {d('requests:eio'):.0f}), corruptions {d('jverity_nbd_export_corruptions_total'):.0f}, "
            f"FEC corrections {d('jverity_nbd_export_fec_corrections_total'):.0f}, "
            f"connections {d('jverity_nbd_connections_total'):.0f}, protocol errors {d('jverity_nbd_protocol_errors_total'):.0f}"
        )

    heap_growth = rss_growth = live_growth = -1e9
    fd_growth = thread_growth = -10**9
    for s in spec["servers"]:
        l = s["label"]
        h1, h3, n = thirds(series[l], "heap_used")
        c1, c3, _ = thirds(series[l], "heap_committed")
        r1, r3, _ = thirds(series[l], "RssAnon")
        v1, v3, _ = thirds(series[l], "VmRSS")
        idle0, idle1 = base[l].get("heap_used", float("nan")), end_live[l].get("heap_used", float("nan"))
        # What is live is what jcmd's histogram counts: it collects the whole heap first. The
        # jstat figure after the idle collection can be a later sample, with garbage made since
        # (a CI run saw 40.9 MiB there while the histogram, taken next, had grown by 8).
        live0 = sum(b for _, b in histo0[l].values()) / MIB
        live1 = sum(b for _, b in histo1[l].values()) / MIB
        log(f"{l}: heap used, mean of the first third vs the last third of {n} samples: {h1:.1f} -> {h3:.1f} MiB "
            f"(committed {c1:.1f} -> {c3:.1f}); RssAnon {r1:.1f} -> {r3:.1f} MiB (VmRSS {v1:.1f} -> {v3:.1f})")
        log(f"{l}: live heap (jcmd GC.class_histogram): {live0:.1f} MiB after warm-up, {live1:.1f} MiB after the soak; "
            f"heap used after the idle collection {idle0:.1f} and {idle1:.1f} MiB"
            + (f" (waited {waited:.0f} s)" if waited is not None else " (no idle collection seen in 40 s)"))
        log(f"{l}: open files {start[l]['fds']} before any client, {base[l]['fds']} after warm-up, {end[l]['fds']} at the end; "
            f"threads {start[l]['Threads']}, {base[l]['Threads']}, {end[l]['Threads']} (settled in {settle_s:.0f} s)")
        grew = sorted(
            ((b1 - histo0[l].get(c, (0, 0))[1], n1 - histo0[l].get(c, (0, 0))[0], c) for c, (n1, b1) in histo1[l].items()),
            reverse=True,
        )[:6]
        log(f"{l}: live objects that grew most (jcmd GC.class_histogram, after warm-up -> end): "
            + "; ".join(f"{c} {db / KIB:+.0f} KiB ({dn:+d})" for db, dn, c in grew))
        more_threads = thread_names(s["pid"]) - base[l]["names"]
        more_fds = fd_targets(s["pid"]) - base[l]["fd_kinds"]
        if more_threads or more_fds:
            log(f"{l}: more than after warm-up: threads {dict(more_threads) or 0}, open files {dict(more_fds) or 0}")
        heap_growth = max(heap_growth, h3 - h1)
        rss_growth = max(rss_growth, r3 - r1)
        live_growth = max(live_growth, live1 - live0)
        fd_growth = max(fd_growth, end[l]["fds"] - base[l]["fds"])
        thread_growth = max(thread_growth, end[l]["Threads"] - base[l]["Threads"])
    for s in spec["servers"]:
        s["jstat"].close()
    failures = sum(fails.values())
    unexpected = sum(v for k, v in fails.items() if k != "eio") + sum(unexplained.values()) + sum(other.values()) \
        + sum(fp_failures.values()) + len(hung) + sum(vanish_errors.values())
    log(f"RATIO soak_requests {totals['requests']}")
    log(f"RATIO soak_failures {failures}")
    log(f"RATIO soak_failures_eio {fails.get('eio', 0)}")
    log(f"RATIO soak_unexpected_failures {unexpected}")
    log(f"RATIO soak_fec_corrections {corrected:.0f}")
    log(f"RATIO soak_clients_vanished {sum(vanished.values()) + sum(killed.values())}")
    log(f"RATIO soak_wrong_bytes {wrong_bytes}")
    log(f"RATIO soak_heap_growth_mib {heap_growth:.1f}")
    log(f"RATIO soak_live_heap_growth_mib {live_growth:.1f}")
    log(f"RATIO soak_rss_growth_mib {rss_growth:.1f}")
    log(f"RATIO soak_fd_growth {fd_growth}")
    log(f"RATIO soak_thread_growth {thread_growth}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
