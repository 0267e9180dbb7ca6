#!/usr/bin/env bash
# nbd.sh — jverity's NBD server (verifying every byte) against `nbdkit file` (not verifying) on the
# same image, in the same run, with the dm-verity mailing list's workloads driven by fio's nbd
# engine (../shared/bench/nbd_anchor.sh does the serving, fio runs and table), plus the 2-core
# SHA-256 limit of this machine (openssl speed -multi 2, before and after the fio runs; the best is
# kept). Prints the anchor's table, then the three RATIO lines as the last lines:
#   RATIO nbd_4k_random_8j_of_nbdkit      jverity IOPS / nbdkit IOPS, 4 KiB random, 8 jobs (target >= 0.90)
#   RATIO nbd_4k_qd1_p50_minus_nbdkit_us  jverity p50 - nbdkit p50, 4 KiB random, 1 job, µs (target <= 10)
#   RATIO nbd_512k_seq_of_hash_limit      jverity 512 KiB sequential bytes/s / 2-core SHA-256 limit (target >= 0.50)
#
# Usage: bench/nbd.sh     Env: SIZE=1G RUNTIME=5 REPS=1 (passed to nbd_anchor.sh; its defaults are
#        15 s and 1 rep); NBD_JAVA_OPTS extra JVM flags of the jverity server (e.g.
#        -XX:StartFlightRecording=filename=/tmp/nbd.jfr); WARMUP=3 seconds the launcher serves an
#        in-process client before opening its port, so fio meets a JIT-compiled server (0: cold, as
#        a freshly started `jverity open`; the CLI path has no warm-up); JVERITY_SERVER=launcher|cli|auto (auto:
#        `bin/jverity open` once the CLI has it, else org.jverity.bench.NbdBenchServer).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/bin/lib.sh"
ANCHOR="$ROOT/../shared/bench/nbd_anchor.sh"
[ -x "$ANCHOR" ] || [ -f "$ANCHOR" ] || { echo "nbd.sh: missing $ANCHOR" >&2; exit 2; }
export SIZE=${SIZE:-1G} RUNTIME=${RUNTIME:-5} REPS=${REPS:-1} MC_CHECK=${MC_CHECK:-0}
export WORKLOADS=${WORKLOADS:-"a b c d"}
WARMUP=${WARMUP:-3}
JAVA_HOME=$(jverity_find_jdk); export JAVA_HOME
MODE=${JVERITY_SERVER:-auto}
if [ "$MODE" = auto ]; then
  if grep -rqs 'name = "open"' "$ROOT/jverity-cli/src/main/java"; then MODE=cli; else MODE=launcher; fi
fi
case $MODE in
  cli)
    SERVER="env JVERITY_JAVA_OPTS='${NBD_JAVA_OPTS:-}' $ROOT/bin/jverity open {IMAGE} bench {HASH} {ROOT} --port {PORT}"
    "$ROOT/bin/jverity" --version >/dev/null 2>&1 || true ;;  # builds it now, not under the anchor's start-up wait
  launcher)
    jverity_mvn -q -DskipTests package >/dev/null
    CP="$ROOT/jverity-core/target/classes:$ROOT/jverity-nbd/target/classes:$ROOT/jverity-bench/target/classes"
    SERVER="$JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED -Dwarmup=$WARMUP ${NBD_JAVA_OPTS:-} -cp $CP org.jverity.bench.NbdBenchServer {IMAGE} {HASH} {ROOT} {PORT}" ;;
  *) echo "nbd.sh: JVERITY_SERVER=$MODE (expected: auto, cli or launcher)" >&2; exit 2 ;;
esac

hash_limit() {  # bytes/s of salted-free SHA-256 over 4 KiB blocks on 2 processes
  openssl speed -mr -seconds 2 -evp sha256 -bytes 4096 -multi 2 2>/dev/null | awk -F: '/^\+F:/{print $4}' | tail -1
}
LIMIT0=$(hash_limit)
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
bash "$ANCHOR" nbdkit "cmd:jverity=$SERVER" | tee "$OUT"
LIMIT1=$(hash_limit)
LIMIT=$(awk -v a="$LIMIT0" -v b="$LIMIT1" 'BEGIN{print (a > b) ? a : b}')
echo "hash limit (openssl speed -evp sha256 -bytes 4096 -multi 2): before $(awk -v x="$LIMIT0" 'BEGIN{printf "%.0f", x/1e6}') MB/s, after $(awk -v x="$LIMIT1" 'BEGIN{printf "%.0f", x/1e6}') MB/s; best $(awk -v x="$LIMIT" 'BEGIN{printf "%.0f", x/1e6}') MB/s"
# Table rows: server wl n IOPS MiB/s p50 p99 p99.9 srvCPU%
col() { awk -v s="$1" -v w="$2" -v c="$3" '$1 == s && $2 == w {print $c; exit}' "$OUT"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "" || b == "" || b == 0) print "nan"; else printf "%.2f", a / b }'; }
diff1() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "" || b == "") print "nan"; else printf "%.1f", a - b }'; }
R_A=$(ratio "$(col jverity a 4)" "$(col nbdkit a 4)")
R_C=$(diff1 "$(col jverity c 6)" "$(col nbdkit c 6)")
B_MIB=$(col jverity b 5)
R_B=$(ratio "$(awk -v m="${B_MIB:-}" 'BEGIN{ if (m != "") printf "%.0f", m * 1048576 }')" "$LIMIT")
echo "targets: a >= 0.90 of nbdkit; c p50 <= nbdkit + 10 us; b >= 0.50 of the 2-core hash limit (goal 0.60)"
echo "RATIO nbd_4k_random_8j_of_nbdkit $R_A"
echo "RATIO nbd_4k_qd1_p50_minus_nbdkit_us $R_C"
echo "RATIO nbd_512k_seq_of_hash_limit $R_B"
