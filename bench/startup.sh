#!/usr/bin/env bash
# startup.sh — whole processes, the way users run them: `bin/jverity` against `veritysetup`
#   1. format of images of 16 MiB, 64 MiB, 256 MiB and 1 GiB (AES-128-CTR keystream, bin/lib.sh
#      jverity_bench_image), same salt and UUID for both tools; the hash files are compared first;
#   2. dump of the 16 MiB image's hash file, and --help.
# hyperfine, RUNS measured runs after WARMUP, medians. The last lines are
# `RATIO startup_<what>_over_veritysetup <jverity time / veritysetup time>` (below 1: jverity is
# faster); for --help, the ratio is over `veritysetup --help`.
# Usage: bench/startup.sh [SIZE...]    Env: RUNS=10 WARMUP=2
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=$REPO
# shellcheck source=bin/lib.sh
. "$REPO/bin/lib.sh"
JV="$REPO/bin/jverity"
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-2}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(16M 64M 256M 1G)
SALT=e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d
UUID=a60c98d2-ae9b-4865-bfcb-b4e3ace11033
die() { echo "startup: $*" >&2; exit 2; }
export PATH="$PATH:/usr/sbin:/sbin"
for t in veritysetup hyperfine python3 cmp numfmt; do
  command -v "$t" >/dev/null || die "missing tool: $t (Debian: apt-get install cryptsetup-bin hyperfine)"
done

echo "# building jverity and its AOT cache (untimed)" >&2
"$JV" --version >/dev/null || die "bin/jverity --version failed"

BASE=/dev/shm
[ "$(df -k --output=avail "$BASE" | tail -1)" -gt 2500000 ] || BASE=/tmp
DIR=$(mktemp -d "$BASE/jverity-startup.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
trap 'exit 130' INT TERM

# Median seconds of hyperfine's JSON export $1, command $2 (0-based).
median() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["median"])' "$1" "$2"; }
ratios=()
# Times jverity ($2) against veritysetup ($3) and records the ratio under the name $1.
compare() {
  local name=$1 json="$DIR/$1.json"
  hyperfine -N --runs "$RUNS" --warmup "$WARMUP" --export-json "$json" -n "jverity $name" "$2" \
    -n "veritysetup $name" "$3" >&2
  ratios+=("RATIO startup_${name}_over_veritysetup $(python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' \
    "$(median "$json" 0)" "$(median "$json" 1)")")
}

for size in "${SIZES[@]}"; do
  img="$DIR/$size.img"
  jverity_bench_image "$img" "$(numfmt --from=iec "$size")"
  opts="--salt $SALT --uuid $UUID"
  "$JV" format "$img" "$DIR/$size.jv.hash" $opts >/dev/null
  veritysetup format "$img" "$DIR/$size.vs.hash" $opts >/dev/null
  cmp "$DIR/$size.jv.hash" "$DIR/$size.vs.hash" || die "$size: the hash files differ"
  compare "format_$size" "$JV format $img $DIR/$size.jv.hash $opts" "veritysetup format $img $DIR/$size.vs.hash $opts"
done
first="$DIR/${SIZES[0]}.vs.hash"
compare dump "$JV dump $first" "veritysetup dump $first"
compare help "$JV --help" "veritysetup --help"
printf '%s\n' "${ratios[@]}"
