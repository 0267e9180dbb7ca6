#!/usr/bin/env bash
# format-verify.sh — wall time of `jverity format|verify` against `veritysetup
# format|verify` (cryptsetup), whole processes as a user runs them (JVM start
# included), on one deterministic image held in page cache.
#
# Usage: bench/format-verify.sh [SIZE]       SIZE default 2G (IEC: 256M, 1G, 2G, ...;
#                                            a multiple of 4096)
# Env:   RUNS=3               measured runs per command (hyperfine; min and median shown)
#        WARMUP=1             unmeasured warm-up runs per command
#        JVERITY_JAVA_OPTS=   extra JVM flags for bin/jverity (passed through), e.g.
#                             JVERITY_JAVA_OPTS='-XX:+UseParallelGC -Xmx1g' bench/format-verify.sh 1G
#        JSON_OUT=FILE        also keep hyperfine's JSON export there
#        SALT=<64 hex>        fixed salt (default 5a..5a), UUID=<uuid> fixed superblock uuid
#
# What it does:
#   1. builds jverity (bin/jverity --version, untimed);
#   2. writes SIZE bytes of AES-128-CTR keystream (key/iv 0; same SIZE = same bytes)
#      to /dev/shm when there is room, else to /tmp (then read once into page cache);
#   3. formats once with each tool (untimed) and checks they give the same root hash
#      and byte-identical hash files (cmp); exits 1 loudly otherwise;
#   4. one hyperfine invocation, commands back to back (D = data, H1/H2 = hash files):
#        cat D > /dev/null                           (read floor)
#        veritysetup format D H1 --salt S --uuid U
#        bin/jverity format D H2 --salt S --uuid U
#        veritysetup verify D H1 ROOT
#        bin/jverity verify D H2 ROOT
#      then re-checks (cmp) the hash files the timed runs left; both verify runs must
#      exit 0 against veritysetup's root hash (hyperfine fails on a non-zero exit);
#   5. this CPU's SHA-256 limits (bench/sha256-limit.sh: one stream, libcrypto, and two streams,
#      SHA-NI), the two-stream all-core one as the hash limit;
#   6. prints the table, the jverity/veritysetup ratios and jverity vs the hash limit, and ends
#      with two lines (veritysetup median / jverity median; > 1 = jverity faster):
#        RATIO format_<size>_over_veritysetup <x.xx>
#        RATIO verify_<size>_over_veritysetup <x.xx>
# Needs: veritysetup, hyperfine, openssl, numfmt, and jq or python3.  The image and
# hash files are removed on exit.  Runtime for 2G, RUNS=3: about 1-2 minutes.
set -euo pipefail

SIZE_ARG=${1:-2G}
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-1}
SALT=${SALT:-5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a}
UUID=${UUID:-00000000-0000-4000-8000-00000000beef}
JSON_OUT=${JSON_OUT:-}

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JV="$REPO/bin/jverity"

die() { echo "format-verify: $*" >&2; exit 2; }
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"

# ---- 1. tools, arguments; build jverity first (untimed) ------------------------
bench_setup "$SIZE_ARG"

# ---- 2. where the image lives ---------------------------------------------------
# data + two hash files (~1/127 of the data each) + slack
bench_scratch format-verify $(( SIZE / 1024 * 105 / 100 + 65536 ))
DATA=$DIR/data.img; H1=$DIR/veritysetup.hash; H2=$DIR/jverity.hash; JSON=$DIR/hyperfine.json

echo "# writing $SIZE bytes of AES-128-CTR keystream to $DATA" >&2
{ openssl enc -aes-128-ctr -K 00000000000000000000000000000000 \
    -iv 00000000000000000000000000000000 -in /dev/zero 2>/dev/null || true; } \
  | head -c "$SIZE" > "$DATA"
[ "$(stat -c %s "$DATA")" = "$SIZE" ] || die "image generation failed"
cat "$DATA" > /dev/null

# ---- 3. correctness: same root hash, byte-identical hash files -------------------
root_of() { awk '/^Root hash:/{print $3}'; }
# check_same WHEN: compares H1 and H2 and the roots REF_ROOT / JV_ROOT; exits 1 on difference.
check_same() {
  local when=$1 bad=0 c
  if [ -z "$REF_ROOT" ] || [ "$JV_ROOT" != "$REF_ROOT" ]; then
    echo "!!! MISMATCH ($when): root hash differs" >&2
    echo "!!!   veritysetup: ${REF_ROOT:-<none>}" >&2
    echo "!!!   jverity:     ${JV_ROOT:-<none>}" >&2
    bad=1
  fi
  if ! c=$(cmp "$H1" "$H2" 2>&1); then
    echo "!!! MISMATCH ($when): hash files differ: ${c}" >&2
    echo "!!!   sizes: veritysetup $(stat -c %s "$H1" 2>/dev/null || echo '?') B," \
         "jverity $(stat -c %s "$H2" 2>/dev/null || echo '?') B;" \
         "differing bytes: $(cmp -l "$H1" "$H2" 2>/dev/null | wc -l)" >&2
    bad=1
  fi
  if [ $bad = 1 ]; then
    echo "!!! jverity does NOT reproduce veritysetup's output ($SIZE bytes, salt $SALT, uuid $UUID)" >&2
    exit 1
  fi
  echo "# $when: root hashes equal, hash files byte-identical ($(stat -c %s "$H1") B)" >&2
}
REF_ROOT=$("$VS" format "$DATA" "$H1" --salt "$SALT" --uuid "$UUID" | root_of)
JV_ROOT=$(JVERITY_NO_PROGRESS=1 "$JV" format "$DATA" "$H2" --salt "$SALT" --uuid "$UUID" | root_of) || true
check_same "untimed format"

# ---- 4. timings: one hyperfine invocation ------------------------------------------
q() { printf '%q' "$1"; }
D=$(q "$DATA"); QH1=$(q "$H1"); QH2=$(q "$H2"); QJV=$(q "$JV"); QVS=$(q "$VS")
NAMES=("cat > /dev/null (read floor)" "veritysetup format" "jverity format"
       "veritysetup verify" "jverity verify")
# -N: no intermediate shell; hyperfine sends each command's stdout/stderr to /dev/null.
CMDS=("cat $D"
      "$QVS format $D $QH1 --salt $SALT --uuid $UUID"
      "$QJV format $D $QH2 --salt $SALT --uuid $UUID"
      "$QVS verify $D $QH1 $REF_ROOT"
      "$QJV verify $D $QH2 $REF_ROOT")
HF_ARGS=(-N --style none --runs "$RUNS" --warmup "$WARMUP" --export-json "$JSON")
for i in "${!CMDS[@]}"; do HF_ARGS+=(--command-name "${NAMES[$i]}" "${CMDS[$i]}"); done
echo "# hyperfine: ${#CMDS[@]} commands x ($WARMUP warm-up + $RUNS runs)${JVERITY_JAVA_OPTS:+, JVERITY_JAVA_OPTS=$JVERITY_JAVA_OPTS}" >&2
# CPU accounting over the timing window, to tell how much other work shared the CPUs:
# /proc/stat jiffies "busy steal" (busy = user+nice+system+irq+softirq).
cpu_jiffies() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8, $9}' /proc/stat; }
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
read -r BUSY0 STEAL0 < <(cpu_jiffies); T0=$(date +%s.%N)
if ! hyperfine "${HF_ARGS[@]}" >"$DIR/hf.out" 2>"$DIR/hf.err"; then
  echo "!!! hyperfine failed (a command exited non-zero?):" >&2
  cat "$DIR/hf.err" "$DIR/hf.out" >&2
  exit 1
fi
read -r BUSY1 STEAL1 < <(cpu_jiffies); T1=$(date +%s.%N)
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
if [ -n "$JSON_OUT" ]; then cp "$JSON" "$JSON_OUT"; fi

# the hash files left by the timed runs must still be identical (both verify commands
# exited 0 against veritysetup's root hash, or hyperfine would have failed above)
check_same "after timed runs"

declare -A MIN MED
OURS=0  # CPU seconds of the timed commands: mean user+system x (warm-up + runs)
while IFS=$'\t' read -r name min med cpu; do
  MIN[$name]=$min; MED[$name]=$med
  OURS=$(awk -v o="$OURS" -v c="$cpu" -v n=$((RUNS + WARMUP)) 'BEGIN{print o + c * n}')
done < <(bench_stats "$JSON")
HZ=$(getconf CLK_TCK)
CPU_LINE=$(awk -v b=$((BUSY1 - BUSY0)) -v s=$((STEAL1 - STEAL0)) -v hz="$HZ" -v o="$OURS" \
  -v w="$(awk -v a="$T0" -v b="$T1" 'BEGIN{print b - a}')" -v n="$(nproc)" 'BEGIN{
    printf "%.1f s wall x %d CPUs: busy %.1f CPU-s, of which timed commands ~%.1f, other work ~%.1f; steal %.1f CPU-s",
      w, n, b / hz, o, (b / hz - o > 0 ? b / hz - o : 0), s / hz }')

# ---- 5. this CPU's SHA-256 limits (bench/sha256-limit.sh) -------------------------
NPROC=$(nproc)
echo "# SHA-256 limits: bench/sha256-limit.sh (~10 s)" >&2
bench_sha256_limits >&2 || die "the SHA-256 limit probe failed"

# ---- 6. report -------------------------------------------------------------------
mbs() { awk -v b="$SIZE" -v t="$1" 'BEGIN{printf "%.0f", b / t / 1e6}'; }
CPU=$(awk -F': *' '/^model name/{print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
[ -n "$CPU" ] || CPU=$(lscpu 2>/dev/null | awk -F': *' '/^Model name/{print $2; exit}')
JAVA_VER=$(. "$REPO/bin/lib.sh" && h=$(jverity_find_jdk 2>/dev/null) && "$h/bin/java" -version 2>&1 | head -1 || echo "?")

echo
echo "format-verify.sh  $(date -u '+%F %T UTC')"
echo "machine: nproc=$NPROC, CPU: ${CPU:-?}, $(awk '/MemTotal/{printf "%.0f GiB RAM", $2/1048576}' /proc/meminfo), kernel $(uname -r)"
echo "tools:   $("$VS" --version | awk '{print $1, $2}'), $JV_VERSION, java: $JAVA_VER, $(openssl version | awk '{print $1, $2}'), $(hyperfine --version)"
echo "data:    $SIZE bytes ($((SIZE >> 20)) MiB) in $WHERE; $RUNS runs + $WARMUP warm-up per command, back to back in one hyperfine run"
echo "noise:   loadavg $LOAD_BEFORE before timing, $LOAD_AFTER after"
echo "         timing window $CPU_LINE"
echo "         (other work or steal of more than a few CPU-s = the figures below are disturbed; rerun)"
echo "JVERITY_JAVA_OPTS: ${JVERITY_JAVA_OPTS:-<unset>}"
echo "root hash (salt ${SALT:0:8}.., uuid $UUID): $REF_ROOT"
echo "check:   jverity root hash == veritysetup's, hash files byte-identical (cmp) — OK"
echo
printf '%-30s %6s %8s %9s %10s %10s\n' "command" "MiB" "min s" "median s" "MB/s best" "MB/s med"
for n in "${NAMES[@]}"; do
  printf '%-30s %6d %8.3f %9.3f %10s %10s\n' "$n" $((SIZE >> 20)) "${MIN[$n]}" "${MED[$n]}" \
    "$(mbs "${MIN[$n]}")" "$(mbs "${MED[$n]}")"
done
echo
echo "jverity / veritysetup  (throughput ratio = veritysetup time / jverity time; > 1 = jverity faster)"
printf '%-10s %12s %12s\n' "" "by median" "by best"
for op in format verify; do
  printf '%-10s %11sx %11sx\n' "$op" \
    "$(bench_div "${MED[veritysetup $op]}" "${MED[jverity $op]}")" \
    "$(bench_div "${MIN[veritysetup $op]}" "${MIN[jverity $op]}")"
done
echo
echo "SHA-256 limits (bench/sha256-limit.sh, 4 KiB blocks, 32-byte salt), MB/s:"
printf '  %-34s %8s %8s\n' "" "1 core" "$NPROC cores" "one stream (libcrypto)" "$LIMIT_ONE_1CORE" "$LIMIT_ONE_ALL" \
  "two streams (SHA-NI): the hash limit" "$LIMIT_TWO_1CORE" "$LIMIT_TWO_ALL"
for op in format verify; do
  printf '  jverity %s MB/s / %s-core hash limit: %s (best), %s (median)\n' "$op" "$NPROC" \
    "$(bench_div "$(mbs "${MIN[jverity $op]}")" "$LIMIT_TWO_ALL")" "$(bench_div "$(mbs "${MED[jverity $op]}")" "$LIMIT_TWO_ALL")"
done
echo
for op in format verify; do
  echo "RATIO ${op}_$(echo "$SIZE_ARG" | tr 'A-Z' 'a-z')_over_veritysetup $(bench_div "${MED[veritysetup $op]}" "${MED[jverity $op]}")"
done
