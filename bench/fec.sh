#!/usr/bin/env bash
# fec.sh — FEC (Reed-Solomon parity) encoding speed of `jverity format --fec-device`
# against `veritysetup format --fec-device` (cryptsetup), whole processes as a user
# runs them (JVM start included), on one deterministic image held in page cache.
#
# Usage: bench/fec.sh [SIZE]        SIZE default 512M (IEC: 256M, 1G, ...; a multiple of 4096)
# Env:   ROOTS=2              --fec-roots (2..24)
#        RUNS=3               measured runs per command (hyperfine; min and median shown)
#        WARMUP=1             unmeasured warm-up runs per command
#        JVERITY_JAVA_OPTS=   extra JVM flags for bin/jverity (passed through)
#        SALT=<64 hex>        fixed salt (default 5a..5a), UUID=<uuid> fixed superblock uuid
#
# What it does:
#   1. builds jverity (bin/jverity --version, untimed);
#   2. writes SIZE bytes of AES-128-CTR keystream (key/iv 0: bin/lib.sh jverity_bench_image)
#      to /dev/shm when there is room, else to /tmp;
#   3. formats once with each tool with FEC (untimed) and checks that the hash files and the
#      FEC files are byte-identical (cmp); exits 1 loudly otherwise;
#   4. one hyperfine invocation, commands back to back (D = data, H/F = hash/FEC files):
#        veritysetup format D H1                        (plain format)
#        veritysetup format D H1 --fec-device F1 --fec-roots ROOTS
#        bin/jverity format D H2
#        bin/jverity format D H2 --fec-device F2 --fec-roots ROOTS
#      then re-checks (cmp) the files the timed runs left;
#   5. prints the table; each tool's FEC time is its "with FEC" median minus its plain
#      format median (so JVM start and tree building cancel out), FEC MB/s = SIZE / FEC time.
# The last two lines are exactly:
#   RATIO fec_format_<size>_over_veritysetup <x.xx>   (whole `format --fec-device` processes:
#                                                      veritysetup median / jverity median)
#   RATIO fec_encode_over_veritysetup <x.xx>          (jverity FEC MB/s over veritysetup FEC
#                                                      MB/s, by median: plain format subtracted)
# Needs: veritysetup, hyperfine, openssl, numfmt, cmp, and jq or python3.  Files are removed
# on exit.  Runtime for 512M at roots 2, RUNS=3: about 1-2 minutes (veritysetup's FEC
# encoder does ~50-70 MB/s here).
set -euo pipefail

SIZE_ARG=${1:-512M}
ROOTS=${ROOTS:-2}
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-1}
SALT=${SALT:-5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a}
UUID=${UUID:-00000000-0000-4000-8000-00000000beef}

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=$REPO
JV="$REPO/bin/jverity"
# shellcheck source=bin/lib.sh
. "$REPO/bin/lib.sh"

die() { echo "fec: $*" >&2; exit 2; }
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"

# ---- 1. tools, arguments; build jverity first (untimed) ------------------------
bench_setup "$SIZE_ARG"
bench_roots

# ---- 2. where the image lives ---------------------------------------------------
# data + two hash files + two FEC files (roots/(255-roots) of the data each) + slack
bench_scratch fec $(( SIZE / 1024 * (105 + 200 * ROOTS / (255 - ROOTS)) / 100 + 65536 ))
DATA=$DIR/data.img
H1=$DIR/veritysetup.hash; F1=$DIR/veritysetup.fec
H2=$DIR/jverity.hash; F2=$DIR/jverity.fec
JSON=$DIR/hyperfine.json
echo "# writing $SIZE bytes of AES-128-CTR keystream to $DATA" >&2
jverity_bench_image "$DATA" "$SIZE" || die "image generation failed"
cat "$DATA" > /dev/null

# ---- 3. correctness: byte-identical hash and FEC files -----------------------------
check_same() {
  local when=$1 bad=0 c f
  for f in "$H1:$H2" "$F1:$F2"; do
    if ! c=$(cmp "${f%%:*}" "${f#*:}" 2>&1); then
      echo "!!! MISMATCH ($when): $c" >&2; bad=1
    fi
  done
  [ $bad = 0 ] || { echo "!!! jverity does NOT reproduce veritysetup's FEC output (roots $ROOTS)" >&2; exit 1; }
  echo "# $when: hash files and FEC files byte-identical (FEC $(stat -c %s "$F1") B)" >&2
}
"$VS" format "$DATA" "$H1" --fec-device "$F1" --fec-roots "$ROOTS" --salt "$SALT" --uuid "$UUID" >/dev/null
JVERITY_NO_PROGRESS=1 "$JV" format "$DATA" "$H2" --fec-device "$F2" --fec-roots "$ROOTS" \
  --salt "$SALT" --uuid "$UUID" >/dev/null
check_same "untimed format"

# ---- 4. timings: one hyperfine invocation ------------------------------------------
q() { printf '%q' "$1"; }
D=$(q "$DATA"); QJV=$(q "$JV"); QVS=$(q "$VS")
NAMES=("veritysetup format" "veritysetup format+fec" "jverity format" "jverity format+fec")
CMDS=("$QVS format $D $(q "$H1") --salt $SALT --uuid $UUID"
      "$QVS format $D $(q "$H1") --fec-device $(q "$F1") --fec-roots $ROOTS --salt $SALT --uuid $UUID"
      "$QJV format $D $(q "$H2") --salt $SALT --uuid $UUID"
      "$QJV format $D $(q "$H2") --fec-device $(q "$F2") --fec-roots $ROOTS --salt $SALT --uuid $UUID")
PAIRS=()
for i in "${!CMDS[@]}"; do PAIRS+=("${NAMES[$i]}" "${CMDS[$i]}"); done
bench_hyperfine "$JSON" "$DIR" "$RUNS" "$WARMUP" "${PAIRS[@]}"
check_same "after timed runs"

declare -A MIN MED
while IFS=$'\t' read -r name min med _; do MIN[$name]=$min; MED[$name]=$med; done < <(bench_stats "$JSON")

# ---- 5. report -------------------------------------------------------------------
sub() { awk -v a="$1" -v b="$2" 'BEGIN{d = a - b; if (d < 0.001) d = 0.001; printf "%.3f", d}'; }
mbs() { awk -v b="$SIZE" -v t="$1" 'BEGIN{printf "%.0f", b / t / 1e6}'; }
CPU=$(awk -F': *' '/^model name/{print $2; exit}' /proc/cpuinfo 2>/dev/null || true)

echo
echo "fec.sh  $(date -u '+%F %T UTC')"
echo "machine: nproc=$(nproc), CPU: ${CPU:-?}, kernel $(uname -r)"
echo "tools:   $("$VS" --version | awk '{print $1, $2}'), $JV_VERSION, $(hyperfine --version)"
echo "data:    $SIZE bytes ($((SIZE >> 20)) MiB) in $WHERE; --fec-roots $ROOTS; $RUNS runs + $WARMUP warm-up per command"
echo "noise:   loadavg $LOAD_BEFORE before timing, $LOAD_AFTER after"
echo "check:   hash files and FEC files byte-identical (cmp), before and after the timed runs — OK"
echo
printf '%-26s %8s %9s\n' "command" "min s" "median s"
for n in "${NAMES[@]}"; do printf '%-26s %8.3f %9.3f\n' "$n" "${MIN[$n]}" "${MED[$n]}"; done
echo
VS_FEC_MED=$(sub "${MED[veritysetup format+fec]}" "${MED[veritysetup format]}")
JV_FEC_MED=$(sub "${MED[jverity format+fec]}" "${MED[jverity format]}")
VS_FEC_MIN=$(sub "${MIN[veritysetup format+fec]}" "${MIN[veritysetup format]}")
JV_FEC_MIN=$(sub "${MIN[jverity format+fec]}" "${MIN[jverity format]}")
echo "FEC part (format+fec minus format), MB/s of data encoded:"
printf '%-14s %10s %10s %12s %12s\n' "" "median s" "best s" "MB/s (med)" "MB/s (best)"
printf '%-14s %10s %10s %12s %12s\n' "veritysetup" "$VS_FEC_MED" "$VS_FEC_MIN" "$(mbs "$VS_FEC_MED")" "$(mbs "$VS_FEC_MIN")"
printf '%-14s %10s %10s %12s %12s\n' "jverity" "$JV_FEC_MED" "$JV_FEC_MIN" "$(mbs "$JV_FEC_MED")" "$(mbs "$JV_FEC_MIN")"
echo "whole format+fec, jverity over veritysetup (time ratio): $(bench_div "${MED[veritysetup format+fec]}" "${MED[jverity format+fec]}")x by median"
echo "FEC part, jverity over veritysetup: $(bench_div "$VS_FEC_MIN" "$JV_FEC_MIN")x by best"

# ==== PART 2: reading a whole image with 1% of its blocks corrupted, with FEC ======================
# A copy of $DATA with 1% of its data blocks overwritten (seeded), read whole through `jverity read
# --fec-device` (parity of READ_ROOTS, default 16: 1% of a 239-block round is ~2.4 blocks, within
# its 8 without erasures), its output checked against the original, and timed against reading the
# intact image the same way. One run each, after one warm-up of the intact read.
READ_ROOTS=${READ_ROOTS:-16}
BAD=$DIR/bad.img; HR=$DIR/read.hash; FR=$DIR/read.fec
ROOT_R=$(JVERITY_NO_PROGRESS=1 "$JV" format "$DATA" "$HR" --fec-device "$FR" --fec-roots "$READ_ROOTS" \
  --salt "$SALT" --uuid "$UUID" | awk '/^Root hash:/{print $3}')
cp "$DATA" "$BAD"
BLOCKS=$((SIZE / 4096)); NBAD=$((BLOCKS / 100))
python3 - "$BAD" "$BLOCKS" "$NBAD" <<'PY'
import random, sys
path, blocks, nbad = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(43)
with open(path, "r+b") as f:
    for b in rnd.sample(range(blocks), nbad):
        f.seek(b * 4096 + rnd.randrange(4096 - 16)); f.write(bytes(rnd.randrange(256) for _ in range(16)))
PY
read_time() {  # IMAGE -> seconds of the read alone; then checks the bytes
  local t0 t1
  t0=$(date +%s.%N)
  JVERITY_NO_PROGRESS=1 "$JV" read "$1" "$HR" "$ROOT_R" --fec-device "$FR" --fec-roots "$READ_ROOTS" \
    -o "$DIR/read.out" 2>"$DIR/read.err" || die "read of $1 with FEC failed: $(tail -2 "$DIR/read.err")"
  t1=$(date +%s.%N)
  cmp -s "$DIR/read.out" "$DATA" || die "read of $1 with FEC did not return the original bytes"
  rm -f "$DIR/read.out"
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}'
}
read_time "$DATA" >/dev/null
T_INTACT=$(read_time "$DATA")
T_BAD=$(read_time "$BAD")
CORRECTED=$(grep -c 'corrected with FEC' "$DIR/read.err" || true)
echo
echo "read whole image with FEC (roots $READ_ROOTS), whole process, output checked against the original:"
printf '  intact:                 %8s s  %6s MB/s\n' "$T_INTACT" "$(mbs "$T_INTACT")"
printf '  1%% of blocks corrupted: %8s s  %6s MB/s  (%s blocks corrected, %s corrupted)\n' "$T_BAD" "$(mbs "$T_BAD")" \
  "$CORRECTED" "$NBAD"
# ==== end of PART 2 ===========================================================================

echo "RATIO fec_format_$(echo "$SIZE_ARG" | tr 'A-Z' 'a-z')_over_veritysetup $(bench_div "${MED[veritysetup format+fec]}" "${MED[jverity format+fec]}")"
echo "RATIO fec_encode_over_veritysetup $(bench_div "$VS_FEC_MED" "$JV_FEC_MED")"
