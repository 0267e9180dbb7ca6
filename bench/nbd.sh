#!/usr/bin/env bash
# nbd.sh — jverity's NBD server (verifying every byte) against `nbdkit file` (not verifying) on the
# same image, in the same run, with the dm-verity mailing list's workloads driven by fio's nbd
# engine (../shared/bench/nbd_anchor.sh does the serving, fio runs and table), plus the 2-core
# SHA-256 limit of this machine (openssl speed -multi 2, before and after the fio runs; the best is
# kept). Then the memory of `bin/jverity open` as the kernel counts it (/proc/PID/status) after one
# `nbdcopy` of the export, and after IDLE seconds without clients, beside nbdkit's after the same copy.
# Prints the anchor's table, the memory lines, then the RATIO lines as the last lines:
#   RATIO nbd_4k_random_8j_of_nbdkit      jverity IOPS / nbdkit IOPS, 4 KiB random, 8 jobs (target >= 0.90)
#   RATIO nbd_4k_random_8j_p999_over_nbdkit  jverity p99.9 / nbdkit p99.9, 4 KiB random, 8 jobs (target <= 2)
#   RATIO nbd_4k_qd1_p50_minus_nbdkit_us  jverity p50 - nbdkit p50, 4 KiB random, 1 job, µs (target <= 10)
#   RATIO nbd_512k_seq_of_hash_limit      jverity 512 KiB sequential bytes/s / 2-core two-stream SHA-256 limit
#   RATIO nbd_512k_seq_of_one_stream_limit  the same / 2-core one-stream limit (the old denominator: target >= 0.50)
#   RATIO nbd_rss_after_copy_mib          RssAnon of the server after one nbdcopy, MiB (target <= cache 64 + 64)
#   RATIO nbd_rss_idle_mib                RssAnon after IDLE s without clients, MiB
#   RATIO nbd_first_copy_64m_over_nbdkit  nbdkit's time / jverity's from a fresh server's launch to the end
#                                         of one nbdcopy of FIRST_SIZE (64M) (target >= 0.8)
#   RATIO nbd_first_copy_rss_total_mib    jverity's whole RSS (anon + file) after that copy, MiB (target <= 96)
# RssAnon is the heap and the JVM's own memory; the mapped image is file-backed page cache
# (RssFile, shown beside it), shared with every reader of the file and not counted in the target.
#
# Usage: bench/nbd.sh     Env: SIZE=1G RUNTIME=5 REPS=1 (passed to nbd_anchor.sh; its defaults are
#        15 s and 1 rep); NBD_JAVA_OPTS extra JVM flags of the jverity server (e.g.
#        -XX:StartFlightRecording=filename=/tmp/nbd.jfr); WARMUP=3 seconds the launcher serves an
#        in-process client before opening its port, so fio meets a JIT-compiled server (0: cold, as
#        a freshly started `jverity open`; the CLI path has no warm-up); JVERITY_SERVER=launcher|cli|auto (auto:
#        `bin/jverity open` once the CLI has it, else org.jverity.bench.NbdBenchServer); IDLE=600
#        seconds the memory is watched without clients (60 for a shorter run); NBD_ANCHOR the
#        anchor script (default ../shared/bench/nbd_anchor.sh beside the project); FIRST_SIZE=64M
#        FIRST_REPS=5 the first-copy rows.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/bin/lib.sh"
. "$ROOT/bench/lib.sh"
ANCHOR=${NBD_ANCHOR:-"$ROOT/../shared/bench/nbd_anchor.sh"}
IDLE=${IDLE:-600}
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

# The hash limit: this CPU's all-core two-stream SHA-256 limit (bench/sha256-limit.sh), measured
# before and after the anchor's run, the higher of the two; the one-stream one beside it.
bench_sha256_limits > /dev/null
LIMIT0=$LIMIT_TWO_ALL ONE0=$LIMIT_ONE_ALL
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
bash "$ANCHOR" nbdkit "cmd:jverity=$SERVER" | tee "$OUT"
bench_sha256_limits > /dev/null
LIMIT=$(awk -v a="$LIMIT0" -v b="$LIMIT_TWO_ALL" 'BEGIN{printf "%.0f", 1e6 * ((a > b) ? a : b)}')
LIMIT_ONE=$(awk -v a="$ONE0" -v b="$LIMIT_ONE_ALL" 'BEGIN{printf "%.0f", 1e6 * ((a > b) ? a : b)}')
echo "hash limit (bench/sha256-limit.sh, all cores): two streams $LIMIT0 / $LIMIT_TWO_ALL MB/s before / after, one stream $ONE0 / $LIMIT_ONE_ALL MB/s"
# ---- memory: one nbdcopy of the export, then IDLE seconds without clients -----------------------
MEM=$(mktemp -d /dev/shm/nbd_mem.XXXXXX 2>/dev/null || mktemp -d)
MPIDS=()
trap 'for p in "${MPIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; rm -rf "$MEM" "$OUT"' EXIT
jverity_bench_image "$MEM/data.img" "$(numfmt --from=iec "$SIZE")"
MROOT=$(veritysetup format "$MEM/data.img" "$MEM/data.hash" | awk '/^Root hash:/{print $3}')
# RssAnon, and the file-backed rest (RssFile + RssShmem: a mapped image on tmpfs is shmem), MiB.
rss() { awk '/^RssAnon:/{a=$2} /^Rss(File|Shmem):/{f+=$2} END{printf "%.1f %.0f", a/1024, f/1024}' "/proc/$1/status"; }
JVERITY_JAVA_OPTS=${NBD_JAVA_OPTS:-} "$ROOT/bin/jverity" open "$MEM/data.img" mem "$MEM/data.hash" "$MROOT" --port 0 \
  --runtime-dir "$MEM/run" > "$MEM/uri" 2> "$MEM/err" &
JPID=$!; MPIDS+=("$JPID")
for _ in $(seq 300); do [ -s "$MEM/uri" ] && break; kill -0 "$JPID" 2>/dev/null || break; sleep 0.1; done
MURI=$(head -1 "$MEM/uri")
[ -n "$MURI" ] || { echo "nbd.sh: jverity open did not start: $(tail -3 "$MEM/err")" >&2; exit 1; }
read -r J_START _ <<< "$(rss "$JPID")"
T0=$(date +%s.%N); nbdcopy "$MURI" null:; T1=$(date +%s.%N)
read -r J_COPY J_COPY_FILE <<< "$(rss "$JPID")"
KPORT=$(( 20000 + RANDOM % 40000 ))
nbdkit -f -r --exit-with-parent -i 127.0.0.1 -p "$KPORT" file "$MEM/data.img" 2>/dev/null &
KPID=$!; MPIDS+=("$KPID")
for _ in $(seq 100); do nbdinfo --size "nbd://127.0.0.1:$KPORT/" >/dev/null 2>&1 && break; sleep 0.1; done
nbdcopy "nbd://127.0.0.1:$KPORT/" null: && read -r K_COPY K_COPY_FILE <<< "$(rss "$KPID")"
kill "$KPID" 2>/dev/null || true
sleep "$IDLE"
read -r J_IDLE J_IDLE_FILE <<< "$(rss "$JPID")"
kill "$JPID" 2>/dev/null || true
echo "memory (RssAnon; file = RssFile + RssShmem, the mapped image in page cache): jverity open $J_START MiB at start;" \
  "after one nbdcopy of $SIZE ($(awk -v a="$T0" -v b="$T1" 'BEGIN{printf "%.1f", b-a}') s) $J_COPY MiB (file $J_COPY_FILE MiB);" \
  "after ${IDLE} s idle $J_IDLE MiB (file $J_IDLE_FILE MiB); nbdkit after the same copy ${K_COPY:-?} MiB (file ${K_COPY_FILE:-?} MiB)"

# ---- the first copy from a fresh server: from its launch to the end of one nbdcopy -------------
# As a user meets it: `bin/jverity open` (or `nbdkit file`) started, its socket waited for, one
# nbdcopy of a FIRST_SIZE image to null:, then the server's whole resident memory (RssAnon +
# RssFile + RssShmem). Interleaved, FIRST_REPS times each, medians; one untimed run of each first
# (the server's AOT cache trained, outputs compared with the image).
FIRST_SIZE=${FIRST_SIZE:-64M} FIRST_REPS=${FIRST_REPS:-5}
jverity_bench_image "$MEM/first.img" "$(numfmt --from=iec "$FIRST_SIZE")"
FROOT=$(veritysetup format "$MEM/first.img" "$MEM/first.hash" | awk '/^Root hash:/{print $3}')
first_copy() { # SERVER OUT: prints "ms total_rss_mib"
  local sock=$MEM/first.sock pid t0 t1 uri
  rm -f "$sock"
  t0=$(date +%s%N)
  if [ "$1" = jverity ]; then
    JVERITY_JAVA_OPTS=${NBD_JAVA_OPTS:-} "$ROOT/bin/jverity" open "$MEM/first.img" first "$MEM/first.hash" "$FROOT" \
      --socket "$sock" --runtime-dir "$MEM/run" > /dev/null 2> "$MEM/first.err" &
    uri="nbd+unix:///first?socket=$sock"
  else
    nbdkit -f -r -U "$sock" file "$MEM/first.img" 2> "$MEM/first.err" &
    uri="nbd+unix:///?socket=$sock"
  fi
  pid=$!; MPIDS+=("$pid")
  until [ -S "$sock" ]; do
    kill -0 "$pid" 2>/dev/null || { echo "nbd.sh: $1 did not start: $(tail -2 "$MEM/first.err")" >&2; return 1; }
    sleep 0.001
  done
  nbdcopy "$uri" "$2"; t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000000 )) $(awk '/^Rss(Anon|File|Shmem):/{s+=$2} END{printf "%.0f", s/1024}' "/proc/$pid/status")"
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
}
for server in jverity nbdkit; do
  first_copy "$server" "$MEM/first.out" > /dev/null
  cmp -s "$MEM/first.out" "$MEM/first.img" || { echo "nbd.sh: $server's first copy differs from the image" >&2; exit 1; }
  rm -f "$MEM/first.out"
done
declare -a FJ FK FR
for _ in $(seq "$FIRST_REPS"); do
  read -r ms mib <<< "$(first_copy jverity null:)"; FJ+=("$ms"); FR+=("$mib")
  read -r ms _ <<< "$(first_copy nbdkit null:)"; FK+=("$ms")
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
F_J=$(median "${FJ[@]}") F_K=$(median "${FK[@]}") F_RSS=$(median "${FR[@]}")
echo "first copy of $FIRST_SIZE from a fresh server (launch to the end of one nbdcopy, medians of $FIRST_REPS):" \
  "jverity open ${F_J} ms (${FJ[*]}), nbdkit file ${F_K} ms (${FK[*]}); jverity's whole RSS after it ${F_RSS} MiB"

# Table rows: server wl n IOPS MiB/s p50 p99 p99.9 srvCPU%
col() { awk -v s="$1" -v w="$2" -v c="$3" '$1 == s && $2 == w {print $c; exit}' "$OUT"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "" || b == "" || b == 0) print "nan"; else printf "%.2f", a / b }'; }
diff1() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "" || b == "") print "nan"; else printf "%.1f", a - b }'; }
R_A=$(ratio "$(col jverity a 4)" "$(col nbdkit a 4)")
R_T=$(ratio "$(col jverity a 8)" "$(col nbdkit a 8)")
R_C=$(diff1 "$(col jverity c 6)" "$(col nbdkit c 6)")
B_MIB=$(col jverity b 5)
R_B=$(ratio "$(awk -v m="${B_MIB:-}" 'BEGIN{ if (m != "") printf "%.0f", m * 1048576 }')" "$LIMIT")
R_B1=$(ratio "$(awk -v m="${B_MIB:-}" 'BEGIN{ if (m != "") printf "%.0f", m * 1048576 }')" "$LIMIT_ONE")
echo "targets: a >= 0.90 of nbdkit, its p99.9 <= 2 x nbdkit's; c p50 <= nbdkit + 10 us; b >= 0.50 of the 2-core one-stream hash limit (goal 0.60); RssAnon after a copy <= 128 MiB"
echo "RATIO nbd_4k_random_8j_of_nbdkit $R_A"
echo "RATIO nbd_4k_random_8j_p999_over_nbdkit $R_T"
echo "RATIO nbd_4k_qd1_p50_minus_nbdkit_us $R_C"
echo "RATIO nbd_512k_seq_of_hash_limit $R_B"
echo "RATIO nbd_512k_seq_of_one_stream_limit $R_B1"
echo "RATIO nbd_rss_after_copy_mib $J_COPY"
echo "RATIO nbd_rss_idle_mib $J_IDLE"
echo "RATIO nbd_first_copy_64m_over_nbdkit $(ratio "$F_K" "$F_J")"
echo "RATIO nbd_first_copy_rss_total_mib $F_RSS"
