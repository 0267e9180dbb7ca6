#!/usr/bin/env bash
# avb.sh — `jverity avb add_hashtree_footer` with FEC against `veritysetup format --fec-device`
# on the same single-device layout (an AVB hashtree is a dm-verity v1 tree without a superblock,
# and its FEC is veritysetup's single-device FEC: ../shared/AVB.md 4.1 and 4.3). avbtool itself is
# not installable here and shells out to a `fec` binary that is not either, so veritysetup is the
# nearest peer. Whole processes as a user runs them (JVM start included), one deterministic image
# held in page cache.
#
# Usage: bench/avb.sh [SIZE]        SIZE default 1G (IEC; a multiple of 4096)
# Env:   ROOTS=2              --fec_num_roots / --fec-roots (2..24)
#        HASH=sha1            --hash_algorithm / --hash (avbtool's default is sha1)
#        RUNS=3 WARMUP=1      hyperfine runs per command
#        SALT=<40 hex>        fixed salt (avbtool's default salt is random, as long as the digest)
#
# What it does:
#   1. builds jverity (untimed); writes SIZE bytes of AES-128-CTR keystream to /dev/shm (or /tmp);
#   2. runs add_hashtree_footer once on copy A (untimed), reads the tree and FEC offsets from
#      `jverity avb info_image`, runs veritysetup with those offsets on copy B, and checks that the
#      two files are byte-identical up to the vbmeta (data, tree and parity: cmp) and that the root
#      digests agree; then `veritysetup verify` accepts copy A with its FEC; exits 1 otherwise;
#   3. one hyperfine invocation: both commands back to back, each rewriting its own copy in place
#      (add_hashtree_footer is idempotent on an image that has a footer: it truncates it to the
#      original size and builds everything again, so every run does the whole work);
#   4. re-checks the files the timed runs left, prints the table.
#   5. against avbtool itself (AVBTOOL=/path/to/avbtool.py, 1.3.0; the run fails without it):
#      add_hashtree_footer of a 16 MiB image without FEC, and info_image, whole files and
#      outputs compared first and after.
# The RATIO lines:
#   RATIO avb_hashtree_fec_over_veritysetup <x.xx>   (veritysetup median / jverity median)
#   RATIO avb_add_hashtree_16m_nofec_over_avbtool <x.xx>   (avbtool median / jverity median)
#   RATIO avb_info_image_over_avbtool <x.xx>
# Needs: veritysetup, hyperfine, openssl, numfmt, cmp, python3 and avbtool.py. Files are removed on exit.
set -euo pipefail

SIZE_ARG=${1:-1G}
ROOTS=${ROOTS:-2}
HASH=${HASH:-sha1}
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-1}
SALT=${SALT:-5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a}

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=$REPO
JV="$REPO/bin/jverity"
# shellcheck source=bin/lib.sh
. "$REPO/bin/lib.sh"

die() { echo "avb: $*" >&2; exit 2; }
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"

bench_setup "$SIZE_ARG"
bench_roots

# the original, two copies, each with its tree and parity (roots/(255-roots)) + slack
bench_scratch avb $(( SIZE / 1024 * (305 + 200 * ROOTS / (255 - ROOTS)) / 100 + 65536 ))
ORIG=$DIR/orig.img; A=$DIR/jverity.img; B=$DIR/veritysetup.img; JSON=$DIR/hyperfine.json
echo "# writing $SIZE bytes of AES-128-CTR keystream to $ORIG" >&2
jverity_bench_image "$ORIG" "$SIZE" || die "image generation failed"
cp "$ORIG" "$A"; cp "$ORIG" "$B"

# ---- 2. correctness ------------------------------------------------------------------------
JV_CMD=("$JV" avb add_hashtree_footer --image "$A" --partition_name system --hash_algorithm "$HASH"
        --salt "$SALT" --fec_num_roots "$ROOTS")
JVERITY_NO_PROGRESS=1 "${JV_CMD[@]}" || die "add_hashtree_footer failed"
INFO=$("$JV" avb info_image --image "$A") || die "info_image failed"
field() { awk -v k="$1" -F': +' '$1 ~ "^ *"k"$" {print $2; exit}' <<<"$INFO" | awk '{print $1}'; }
TREE_OFF=$(field "Tree Offset"); FEC_OFF=$(field "FEC offset"); VBMETA_OFF=$(field "VBMeta offset")
AVB_ROOT=$(field "Root Digest")
[ "$TREE_OFF" = "$SIZE" ] || die "info_image: Tree Offset $TREE_OFF (expected: $SIZE)"
[ -n "$FEC_OFF" ] && [ "$FEC_OFF" != 0 ] || die "info_image shows no FEC"
BLOCKS=$((SIZE / 4096))
VS_ARGS=(--no-superblock --format=1 --hash="$HASH" --salt="$SALT" --data-blocks="$BLOCKS"
         --hash-offset="$TREE_OFF" --fec-device="$B" --fec-offset="$FEC_OFF" --fec-roots="$ROOTS")
VS_ROOT=$("$VS" format "${VS_ARGS[@]}" "$B" "$B" | awk '/^Root hash:/{print $3}')
check_same() {
  [ "$VS_ROOT" = "$AVB_ROOT" ] || { echo "!!! root digests differ: veritysetup $VS_ROOT, jverity $AVB_ROOT" >&2; exit 1; }
  cmp -n "$VBMETA_OFF" "$A" "$B" >&2 ||
    { echo "!!! $1: jverity's data, tree and FEC differ from veritysetup's (first $VBMETA_OFF bytes)" >&2; exit 1; }
  echo "# $1: [0, $VBMETA_OFF) byte-identical, root $AVB_ROOT" >&2
}
check_same "untimed run"
VS_VERIFY_ARGS=("${VS_ARGS[@]/--fec-device=$B/--fec-device=$A}")
"$VS" verify "${VS_VERIFY_ARGS[@]}" "$A" "$A" "$AVB_ROOT" >/dev/null ||
  { echo "!!! veritysetup verify refuses jverity's AVB image" >&2; exit 1; }
echo "# veritysetup verify accepts jverity's AVB image with its FEC" >&2

# ---- 3. timings ---------------------------------------------------------------------------
q() { printf '%q' "$1"; }
NAMES=("veritysetup format --fec-device" "jverity avb add_hashtree_footer")
CMDS=("$(q "$VS") format ${VS_ARGS[*]} $(q "$B") $(q "$B")"
      "$(printf '%q ' "${JV_CMD[@]}")")
PAIRS=()
for i in "${!CMDS[@]}"; do PAIRS+=("${NAMES[$i]}" "${CMDS[$i]}"); done
bench_hyperfine "$JSON" "$DIR" "$RUNS" "$WARMUP" "${PAIRS[@]}"
check_same "after timed runs"

declare -A MIN MED
while IFS=$'\t' read -r name min med _; do MIN[$name]=$min; MED[$name]=$med; done < <(bench_stats "$JSON")

mbs() { awk -v b="$SIZE" -v t="$1" 'BEGIN{printf "%.0f", b / t / 1e6}'; }
CPU=$(awk -F': *' '/^model name/{print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
echo
echo "avb.sh  $(date -u '+%F %T UTC')"
echo "machine: nproc=$(nproc), CPU: ${CPU:-?}, kernel $(uname -r)"
echo "tools:   $("$VS" --version | awk '{print $1, $2}'), $JV_VERSION, $(hyperfine --version)"
echo "data:    $SIZE bytes ($((SIZE >> 20)) MiB) in $WHERE; $HASH, FEC roots $ROOTS; $RUNS runs + $WARMUP warm-up per command"
echo "noise:   loadavg $LOAD_BEFORE before timing, $LOAD_AFTER after"
echo "check:   data, tree and FEC byte-identical (cmp) and roots equal, before and after the timed runs;"
echo "         veritysetup verify accepts jverity's image — OK"
echo
printf '%-34s %8s %9s %12s\n' "command" "min s" "median s" "MB/s (med)"
for n in "${NAMES[@]}"; do
  printf '%-34s %8.3f %9.3f %12s\n' "$n" "${MIN[$n]}" "${MED[$n]}" "$(mbs "${MED[$n]}")"
done
echo
echo "RATIO avb_hashtree_fec_over_veritysetup $(bench_div "${MED[veritysetup format --fec-device]}" "${MED[jverity avb add_hashtree_footer]}")"

# ---- 4. against avbtool: add_hashtree_footer of 16 MiB without FEC, and info_image ----------
# avbtool is AOSP's external/avb avbtool.py 1.3.0 (the LineageOS mirror on GitHub has it); it needs
# AOSP's `fec` only for FEC, so these rows have none. Run by the Python interpreter itself, not a
# version manager's shim (pyenv's adds ~20 ms a run), so the peer is measured at its fastest.
AVBTOOL=${AVBTOOL:-$(command -v avbtool.py || command -v avbtool || true)}
[ -n "$AVBTOOL" ] && [ -f "$AVBTOOL" ] ||
  die "no avbtool for the avbtool rows: set AVBTOOL=/path/to/avbtool.py (AOSP external/avb, 1.3.0)"
PY=$(python3 -c 'import sys; print(sys.executable)')
"$PY" "$AVBTOOL" version | grep -q '^avbtool 1\.3\.0' || die "$AVBTOOL is not avbtool 1.3.0"
SMALL=$((16 << 20)) PART=$(((16 << 20) + (4 << 20)))
jverity_bench_image "$DIR/small.img" "$SMALL" || die "image generation failed"
cp "$DIR/small.img" "$DIR/small-jv.img"; cp "$DIR/small.img" "$DIR/small-avb.img"
SMALL_ARGS=(--partition_size "$PART" --partition_name system --do_not_generate_fec --salt "$SALT")
AVB_ADD="$(q "$PY") $(q "$AVBTOOL") add_hashtree_footer --image $(q "$DIR/small-avb.img") ${SMALL_ARGS[*]}"
JV_ADD="$(q "$JV") avb add_hashtree_footer --image $(q "$DIR/small-jv.img") ${SMALL_ARGS[*]}"
AVB_INFO="$(q "$PY") $(q "$AVBTOOL") info_image --image $(q "$DIR/small-avb.img")"
JV_INFO="$(q "$JV") avb info_image --image $(q "$DIR/small-jv.img")"
check_avbtool() {
  cmp "$DIR/small-jv.img" "$DIR/small-avb.img" >&2 || { echo "!!! $1: the images differ from avbtool's" >&2; exit 1; }
  cmp <(eval "$AVB_INFO") <(eval "$JV_INFO") >&2 || { echo "!!! $1: info_image differs from avbtool's" >&2; exit 1; }
  echo "# $1: 16 MiB images byte-identical to avbtool's, info_image the same" >&2
}
eval "$AVB_ADD" && eval "$JV_ADD" || die "add_hashtree_footer (16 MiB) failed"
check_avbtool "untimed run"
RUNS_SMALL=${RUNS_SMALL:-10}
bench_hyperfine "$DIR/avbtool.json" "$DIR" "$RUNS_SMALL" 2 \
  "avbtool add_hashtree_footer 16M" "$AVB_ADD" "jverity avb add_hashtree_footer 16M" "$JV_ADD" \
  "avbtool info_image" "$AVB_INFO" "jverity avb info_image" "$JV_INFO"
check_avbtool "after timed runs"
declare -A SMED
while IFS=$'\t' read -r name _ med _; do SMED[$name]=$med; done < <(bench_stats "$DIR/avbtool.json")
echo
echo "against avbtool 1.3.0 ($PY, $("$PY" --version 2>&1)); 16 MiB, no FEC; $RUNS_SMALL runs + 2 warm-up"
for n in "avbtool add_hashtree_footer 16M" "jverity avb add_hashtree_footer 16M" "avbtool info_image" "jverity avb info_image"; do
  printf '%-38s %8.1f ms (median)\n' "$n" "$(awk -v t="${SMED[$n]}" 'BEGIN{print t*1000}')"
done
echo "RATIO avb_add_hashtree_16m_nofec_over_avbtool $(bench_div "${SMED[avbtool add_hashtree_footer 16M]}" "${SMED[jverity avb add_hashtree_footer 16M]}")"
echo "RATIO avb_info_image_over_avbtool $(bench_div "${SMED[avbtool info_image]}" "${SMED[jverity avb info_image]}")"
