"""bench/remote.sh's measurements that need libnbd or JSON: one sub-command each.

Runs under the system python3 (/usr/bin/python3), which has Debian's python3-libnbd.

  ttfb URI OFFSET GO EXPECT_SHA256 TIMEOUT_S
      Imports libnbd, prints "ready", then waits for the file GO to appear (bench/remote.sh writes
      the wall-clock time it starts the server into it), connects to URI as soon as anything
      answers (every 2 ms), reads 4 KiB at OFFSET and prints
      "START_TO_CONNECT_MS CONNECT_TO_BYTE_MS START_TO_BYTE_MS T_BYTE_EPOCH_S OK|WRONG".
      The import happens before the start, so its ~100 ms is not charged to the server.
  fio JSON
      Prints "IOPS P50_MS P99_MS IO_BYTES" of the read side of fio's JSON output, or the error.
  origin LOG FROM TO [T0_EPOCH_S]
      nginx access log lines between byte offsets FROM and TO (log_format rng of bench/remote.sh):
      prints "REQUESTS BYTES CONNECTIONS PEAK_IN_FLIGHT MEAN_IN_FLIGHT" (in flight: from nginx's
      $request_time, which starts when it read the request's first bytes; the mean over the span
      from the first request's start to the last one's end); with T0, also one line per request: ms since T0 at completion,
      method, status, Range, bytes, nginx's request time (for the first byte's round trips).
"""

import hashlib
import json
import os
import signal
import sys
import time


def ttfb(uri, offset, go, expect, timeout_s):
    import nbd  # the system python's python3-libnbd

    # A listener that is not an NBD server (the port taken by another process) would hold the
    # handshake forever: the whole measurement has a time limit (SIGALRM ends the process).
    signal.alarm(int(timeout_s) + 1)
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.001)
    t0 = None
    while t0 is None:
        try:
            with open(go) as f:
                t0 = float(f.read().strip())
        except ValueError:  # written but not yet flushed
            time.sleep(0.001)
    while True:
        h = nbd.NBD()
        try:
            h.connect_uri(uri)
            break
        except nbd.Error as e:
            if time.time() - t0 > timeout_s:
                print(f"no server at {uri} after {timeout_s} s: {e}", file=sys.stderr)
                sys.exit(1)
            del h
            time.sleep(0.002)
    tc = time.time()
    buf = h.pread(4096, offset)
    t1 = time.time()
    ok = "OK" if hashlib.sha256(buf).hexdigest() == expect else "WRONG"
    print(f"{(tc - t0) * 1e3:.1f} {(t1 - tc) * 1e3:.1f} {(t1 - t0) * 1e3:.1f} {t1:.6f} {ok}")
    h.shutdown()


def fio(path):
    with open(path) as f:
        text = f.read()
    # fio prints notes ("fio: ...") before the JSON object with some engines.
    doc = json.loads(text[text.index("{") :])
    job = doc["jobs"][0]
    if job.get("error"):
        print(f"fio error {job['error']}", file=sys.stderr)
        sys.exit(1)
    r = job["read"]
    pct = r["clat_ns"].get("percentile", {})
    p50 = pct.get("50.000000", 0) / 1e6
    p99 = pct.get("99.000000", 0) / 1e6
    print(f"{r['iops']:.1f} {p50:.3f} {p99:.3f} {r['io_bytes']}")


def origin(log, start, end, t0=None):
    with open(log, "rb") as f:
        f.seek(start)
        lines = f.read(end - start).decode(errors="replace").splitlines()
    n = total = 0
    detail = []
    conns = set()
    edges = []  # (time, +1 at a request's start, -1 at its end): the peak of requests in flight
    for line in lines:
        # $msec $status $body_bytes_sent $request_time "$http_range" $request_method $uri $connection
        parts = line.split()
        if len(parts) < 8:
            continue
        n += 1
        total += int(parts[2])
        conns.add(parts[7])
        end = float(parts[0])
        # At +0 ms nginx's times round to 0.000 s: a request lasts at least half its millisecond.
        edges += [(end - max(float(parts[3]), 0.0005), 1), (end, -1)]
        if t0 is not None:
            detail.append(
                f"  +{(float(parts[0]) - t0) * 1e3:7.1f} ms {parts[5]:4} {parts[1]} "
                f"{parts[4]:28} {parts[2]:>9} B  nginx {float(parts[3]) * 1e3:.0f} ms  {parts[6]}"
            )
    peak = level = 0
    for _, step in sorted(edges, key=lambda e: (e[0], e[1])):  # an end before a start at one time
        level += step
        peak = max(peak, level)
    # Mean in flight: the requests' summed durations over the span from the first start to the last end.
    span = (max(e[0] for e in edges) - min(e[0] for e in edges)) if edges else 0
    busy = sum(-t if step > 0 else t for t, step in edges)
    mean = busy / span if span > 0 else 0
    print(n, total, len(conns), peak, f"{mean:.1f}")
    for d in detail:
        print(d)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "ttfb":
        ttfb(args[0], int(args[1]), args[2], args[3], float(args[4]))
    elif cmd == "fio":
        fio(args[0])
    elif cmd == "origin":
        origin(args[0], int(args[1]), int(args[2]), float(args[3]) if len(args) > 3 else None)
    else:
        sys.exit(f"remote-helpers.py: unknown command {cmd}")


if __name__ == "__main__":
    main()
