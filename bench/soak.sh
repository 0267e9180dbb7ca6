#!/usr/bin/env bash
# soak.sh — jverity's NBD server under load and faults for MINUTES: two `bin/jverity serve`
# processes, one on TCP and one on a Unix socket, each serving the same two exports (`plain`, and
# `fec` with --fec-device parity, RS roots 8), EIO on corruption (serve's default), a small hash
# block cache (so hash blocks are evicted and read again, corrupted or not). bench/soak.py drives:
#   - 8 client processes (libnbd), each a loop of sessions over a random export and transport,
#     structured or simple replies, queue depth 1 or 8 (aio), mixing 4 KiB random, 128 KiB
#     sequential, 1 MiB and unaligned reads (one in five near a recent corruption); every byte a
#     read returns is compared with the pristine image;
#   - clients that vanish: one killed (SIGKILL) in the middle of a read every few seconds, and raw
#     sockets that go mid-handshake, after sending a read, mid-reply, with a reset, or after half
#     a request header;
#   - corruption written into the data, hash and FEC files under the running servers at random
#     moments and places (1 byte, up to 64 bytes, or a whole block; reads in flight meanwhile),
#     each restored from the file's pristine copy 0.2-2.5 s later (at most 6 at once);
#   - every few seconds, per server: heap used and committed (jstat -gc: perf data, no attach),
#     RSS and RssAnon (/proc/PID/status), open files (/proc/PID/fd), threads, connections;
#     live objects by class (jcmd GC.class_histogram) after warm-up and at the end.
# Before the soak, a warm-up without faults and the server's idle collection (10 s after the last
# client) give the baseline; after it, one pass over every export once the files are restored
# (must all verify), the idle collection again, and open files and threads must come back to the
# baseline (waited for: pools shrink on their own). A failed read must be EIO (a corrupted block;
# under FEC one it could not correct), and one while no corruption was in the files from before it
# until after it counts as unexplained. Prints the samples, requests by kind, sessions, failures by
# cause, wrong bytes (with each wrong read), vanished clients, corruptions written, the servers'
# counts (corruptions, FEC corrections), heap and RSS (mean of the first third of the samples vs
# the last third), live heap after the idle collection before vs after and the classes that grew
# most, open files and threads at
# the start, after warm-up and at the end, the server logs' unexpected lines, then the RATIO lines
# as the last lines:
#   RATIO soak_requests                 read requests the clients made
#   RATIO soak_failures                 of them failed (any cause)
#   RATIO soak_failures_eio             of them failed with EIO (corrupted blocks: expected)
#   RATIO soak_unexpected_failures      other failures, unexplained EIO, connection failures, failures of the
#                                       final pass, hangs, raw-client errors (must be 0)
#   RATIO soak_fec_corrections          blocks FEC corrected (the servers' metrics)
#   RATIO soak_clients_vanished         clients killed mid-read plus raw sockets gone
#   RATIO soak_server_log_errors        server stderr lines that are stack traces or exceptions (must be 0)
#   RATIO soak_server_exit              1 when a server died or did not exit 0 on SIGTERM (must be 0)
#   RATIO soak_wrong_bytes              bytes a successful read returned that are not the image's (must be 0)
#   RATIO soak_heap_growth_mib          heap used, last third's mean - first third's, MiB (the larger server's)
#   RATIO soak_live_heap_growth_mib     heap after the idle collection, end - after warm-up, MiB
#   RATIO soak_rss_growth_mib           RssAnon, last third's mean - first third's, MiB
#   RATIO soak_fd_growth                open files at the end - after warm-up (must be <= 0)
#   RATIO soak_thread_growth            threads at the end - after warm-up (must be <= 0)
# Exits 1 when wrong bytes, unexpected failures, server errors or a dead server were seen.
#
# Usage: bench/soak.sh [MINUTES]  (default 10; 0.5 in the test command: jverity-cli's SoakTest)
#        Env: SIZE=64M image; SEED (default random; printed, the run's faults follow from it);
#        CACHE_SIZE=128K hash block cache per server; FEC_ROOTS=8; WARMUP=3 s; SAMPLE seconds
#        between samples (default 5, 2 under 2 minutes); KILL_EVERY=4 s at most between killed
#        clients; SETTLE=60 s at most for open files and threads to come back; KEEP=1 keeps the
#        scratch dir (server logs, wrong.log); SOAK_TMP where it goes (default /dev/shm);
#        JVERITY_JAVA_OPTS extra server JVM flags;
#        JVERITY_CP runs the CLI from this class path instead of bin/jverity (with bin/lib.sh's
#        server JVM options; the test's, so no jar is built under Maven).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/bin/lib.sh"
MINUTES=${1:-10}
SIZE_ARG=${SIZE:-64M}
SEED=${SEED:-$((RANDOM * 32768 + RANDOM))}
CACHE_SIZE=${CACHE_SIZE:-128K}
FEC_ROOTS=${FEC_ROOTS:-8}
WARMUP=${WARMUP:-3}
SAMPLE=${SAMPLE:-$(awk -v m="$MINUTES" 'BEGIN{print (m < 2) ? 2 : 5}')}
KILL_EVERY=${KILL_EVERY:-4}
SETTLE=${SETTLE:-60}
PY=/usr/bin/python3   # Debian's, with python3-libnbd (a pyenv python on PATH has no nbd module)

[[ $MINUTES =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "soak.sh: MINUTES: $MINUTES (expected: a number)" >&2; exit 2; }
for t in openssl numfmt cmp; do
  command -v "$t" >/dev/null || { echo "soak.sh: missing tool: $t" >&2; exit 2; }
done
"$PY" -c 'import nbd' 2>/dev/null || { echo "soak.sh: $PY has no nbd module (apt-get install python3-libnbd)" >&2; exit 2; }
JAVA_HOME=$(jverity_find_jdk); export JAVA_HOME
SIZE=$(numfmt --from=iec "$SIZE_ARG")

# jverity as bin/jverity runs it, or from JVERITY_CP with the same server JVM options. It execs:
# run in a subshell, ( jv ... ) &, the JVM is $! (bin/jverity execs java too).
jv() {
  if [ -n "${JVERITY_CP:-}" ]; then
    jverity_server_java_opts "$@"
    # shellcheck disable=SC2086
    exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED ${JVERITY_SERVER_OPTS[@]+"${JVERITY_SERVER_OPTS[@]}"} \
      ${JVERITY_JAVA_OPTS:-} -cp "$JVERITY_CP" org.jverity.cli.Main "$@"
  else
    exec "$ROOT/bin/jverity" "$@"
  fi
}
[ -n "${JVERITY_CP:-}" ] || "$ROOT/bin/jverity" --version >/dev/null  # builds it now, not under a start-up wait

W=$(mktemp -d "${SOAK_TMP:-/dev/shm}/jverity-soak.XXXXXX" 2>/dev/null || mktemp -d)
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]:-}"; do
    [ -n "$p" ] || continue
    kill "$p" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  if [ "${KEEP:-0}" = 1 ]; then echo "soak.sh: kept $W" >&2; else rm -rf "$W"; fi
}
trap cleanup EXIT

# ---- the image, two copies of it with their trees (one with FEC), pristine copies of all --------
mkdir -p "$W/pristine"
jverity_bench_image "$W/pristine/data.img" "$SIZE"
cp "$W/pristine/data.img" "$W/plain.img"
cp "$W/pristine/data.img" "$W/fec.img"
(jv format "$W/plain.img" "$W/plain.hash" --json) > "$W/plain.json"
(jv format "$W/fec.img" "$W/fec.hash" --fec-device "$W/fec.fec" --fec-roots "$FEC_ROOTS" --json) > "$W/fec.json"
for f in plain.hash fec.hash fec.fec; do cp "$W/$f" "$W/pristine/$f"; done
root() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["rootHash"])' "$1"; }
PLAIN_ROOT=$(root "$W/plain.json")
FEC_ROOT=$(root "$W/fec.json")

# ---- two servers: TCP and a Unix socket, the same two exports each ---------------------------
config() {  # $1 label, $2 the listen line
  mkdir -m 700 "$W/run-$1"
  cat > "$W/$1.conf" <<EOF
[generic]
$2
cache-size = $CACHE_SIZE
metrics-port = 0
runtime-dir = $W/run-$1

[plain]
data = $W/plain.img
hash = $W/plain.hash
root-hash = $PLAIN_ROOT

[fec]
data = $W/fec.img
hash = $W/fec.hash
root-hash = $FEC_ROOT
fec-device = $W/fec.fec
fec-roots = $FEC_ROOTS
EOF
}
config tcp "port = 0"
config unix "socket = $W/nbd.sock"
declare -A PID METRICS
for s in tcp unix; do
  (jv serve "$W/$s.conf" --exit-with-parent) > "$W/$s.out" 2> "$W/$s.err" &
  PID[$s]=$!; PIDS+=("$!")
done
for s in tcp unix; do
  for _ in $(seq 1200); do
    [ "$(wc -l < "$W/$s.out")" -ge 2 ] && grep -q 'metrics: http' "$W/$s.err" && break
    kill -0 "${PID[$s]}" 2>/dev/null || break
    sleep 0.1
  done
  [ "$(wc -l < "$W/$s.out")" -ge 2 ] || { echo "soak.sh: the $s server did not start: $(tail -3 "$W/$s.err")" >&2; exit 1; }
  METRICS[$s]=$(grep -o 'http://[^ ]*/metrics' "$W/$s.err" | head -1)
done
echo "soak: $MINUTES min, image $SIZE_ARG (two copies), hash block cache $CACHE_SIZE per server, FEC roots $FEC_ROOTS, seed $SEED"
echo "servers: tcp pid ${PID[tcp]} ($(tr '\n' ' ' < "$W/tcp.out")), unix pid ${PID[unix]} ($(tr '\n' ' ' < "$W/unix.out")); the machine is shared: figures are noisy"

uris=$(cat "$W/tcp.out" "$W/unix.out" | "$PY" -c 'import json,sys; print(json.dumps([l.strip() for l in sys.stdin if l.strip()]))')
cat > "$W/spec.json" <<EOF
{
  "work": "$W", "jdk": "$JAVA_HOME", "pristine": "$W/pristine/data.img",
  "minutes": $MINUTES, "seed": $SEED, "workers": 8, "sample": $SAMPLE, "warmup": $WARMUP,
  "kill_every": $KILL_EVERY, "hang_s": 60, "settle_s": $SETTLE, "max_active": 6,
  "servers": [
    {"label": "tcp", "pid": ${PID[tcp]}, "metrics": "${METRICS[tcp]}"},
    {"label": "unix", "pid": ${PID[unix]}, "metrics": "${METRICS[unix]}"}
  ],
  "uris": $uris,
  "images": [
    {"label": "plain", "layout": "$W/plain.json", "data": "$W/plain.img", "hash": "$W/plain.hash",
     "pristine_data": "$W/pristine/data.img", "pristine_hash": "$W/pristine/plain.hash"},
    {"label": "fec", "layout": "$W/fec.json", "data": "$W/fec.img", "hash": "$W/fec.hash", "fec": "$W/fec.fec",
     "pristine_data": "$W/pristine/data.img", "pristine_hash": "$W/pristine/fec.hash", "pristine_fec": "$W/pristine/fec.fec"}
  ]
}
EOF

# ---- the soak; its RATIO lines are kept for the end -----------------------------------------
set +e
"$PY" "$ROOT/bench/soak.py" "$W/spec.json" | tee "$W/report" | grep --line-buffered -v '^RATIO '
PY_STATUS=${PIPESTATUS[0]}
set -e

# ---- the servers: still up, exit 0 on SIGTERM, nothing unexpected in their logs ----------------
SERVER_EXIT=0
for s in tcp unix; do
  if ! kill -0 "${PID[$s]}" 2>/dev/null; then
    echo "$s server: DIED during the soak: $(tail -5 "$W/$s.err")"; SERVER_EXIT=1; continue
  fi
  kill "${PID[$s]}"
  set +e; wait "${PID[$s]}"; code=$?; set -e
  echo "$s server: exit $code on SIGTERM"
  [ "$code" = 0 ] || SERVER_EXIT=1
done
PIDS=()
LOG_ERRORS=0
for s in tcp unix; do
  # One line per connection and per corrupted block is expected; a stack trace or an exception is not.
  unexpected=$(grep -cE 'Exception|Error:|^\s+at |internal error' "$W/$s.err" || true)
  echo "$s server log: $(wc -l < "$W/$s.err") lines ($(grep -c 'connected$' "$W/$s.err" || true) connections," \
    "$(grep -c 'is corrupted' "$W/$s.err" || true) corrupted blocks, $(grep -c 'corrected' "$W/$s.err" || true) corrected), $unexpected unexpected"
  { grep -E 'Exception|Error:|^\s+at |internal error' "$W/$s.err" || true; } | head -5 | sed 's/^/  /'
  LOG_ERRORS=$((LOG_ERRORS + unexpected))
done
[ "$PY_STATUS" = 0 ] || echo "soak.sh: soak.py exited $PY_STATUS"
echo "RATIO soak_server_log_errors $LOG_ERRORS"
echo "RATIO soak_server_exit $SERVER_EXIT"
grep '^RATIO ' "$W/report"
ratio() { awk -v k="$1" '$1 == "RATIO" && $2 == k {print $3}' "$W/report"; }
if [ "$PY_STATUS" != 0 ] || [ "$SERVER_EXIT" != 0 ] || [ "$LOG_ERRORS" != 0 ] || [ "$(ratio soak_wrong_bytes)" != 0 ] \
   || [ "$(ratio soak_unexpected_failures)" != 0 ]; then
  exit 1
fi
