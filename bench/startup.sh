#!/usr/bin/env bash
# startup.sh — whole-process wall time of `jverity format` against `veritysetup format` on small
# and medium images (16 MiB, 64 MiB, 256 MiB, 1 GiB), where the JVM's start and warm-up weigh
# most, plus `dump` and `--help`: the commands a user runs the way users run them, through
# bin/jverity, in one hyperfine run per size so both tools see the same machine.
#
# Usage: bench/startup.sh [SIZE...]     default: 16M 64M 256M 1G
# Env:   RUNS=10 WARMUP=2               hyperfine runs per command (medians are compared)
#        JVERITY_JAVA_OPTS=...          passed through to bin/jverity
# Output: a table, then the last lines, one per size and then dump and --help:
#   RATIO startup_<size>_over_veritysetup <veritysetup median / jverity median>
#   RATIO startup_dump_over_veritysetup <x.xx>
#   RATIO startup_help_ms <jverity --help median in ms>
# Greater than 1 means jverity is faster. Outputs are compared first (untimed): root hashes and
# hash files must be identical, or the run fails.
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
SALT=5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a
UUID=00000000-0000-4000-8000-00000000beef
die() { echo "startup: $*" >&2; exit 2; }
export PATH="$PATH:/usr/sbin:/sbin"
for t in veritysetup hyperfine python3 cmp numfmt; do
  command -v "$t" >/dev/null || die "missing tool: $t (Debian: apt-get install cryptsetup-bin hyperfine)"
done
VS=$(command -v veritysetup)

echo "# building jverity and its AOT cache (untimed)" >&2
"$JV" --version >/dev/null || die "bin/jverity --version failed"
JAVA_HOME=$(jverity_find_jdk) || die "no JDK 25 found"

BASE=/dev/shm
[ "$(df -k --output=avail "$BASE" | tail -1)" -gt 2400000 ] || BASE=/tmp
DIR=$(mktemp -d "$BASE/jverity-startup.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
trap 'exit 130' INT TERM

median() { # hyperfine JSON, result index -> median seconds
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["median"])' "$1" "$2"
}
root_of() { awk '/^Root hash:/{print $3}'; }

declare -a LINES RATIOS
for size in "${SIZES[@]}"; do
  bytes=$(numfmt --from=iec "$size")
  data="$DIR/data-$size"
  jverity_bench_image "$data" "$bytes"
  # Same output from both (untimed).
  vr=$("$VS" format "$data" "$DIR/vs.hash" --salt "$SALT" --uuid "$UUID" | root_of)
  jr=$(JVERITY_NO_PROGRESS=1 "$JV" format "$data" "$DIR/jv.hash" --salt "$SALT" --uuid "$UUID" | root_of)
  [ -n "$vr" ] && [ "$vr" = "$jr" ] || die "$size: root hashes differ (veritysetup $vr, jverity $jr)"
  cmp -s "$DIR/vs.hash" "$DIR/jv.hash" || die "$size: hash files differ"
  hyperfine -N --runs "$RUNS" --warmup "$WARMUP" --export-json "$DIR/$size.json" \
    -n "veritysetup format $size" "$VS format $data $DIR/vs.hash --salt $SALT --uuid $UUID" \
    -n "jverity format $size" "$JV format $data $DIR/jv.hash --salt $SALT --uuid $UUID" >&2
  v=$(median "$DIR/$size.json" 0); j=$(median "$DIR/$size.json" 1)
  LINES+=("$(printf '%-6s veritysetup %7.1f ms   jverity %7.1f ms' "$size" "$(awk -v x="$v" 'BEGIN{print x*1000}')" "$(awk -v x="$j" 'BEGIN{print x*1000}')")")
  RATIOS+=("RATIO startup_$(echo "$size" | tr 'A-Z' 'a-z')_over_veritysetup $(awk -v v="$v" -v j="$j" 'BEGIN{printf "%.2f", v/j}')")
  rm -f "$data"
done

head -c 65536 /dev/zero > "$DIR/data-dump"
"$VS" format "$DIR/data-dump" "$DIR/dump.hash" >/dev/null
cmp -s <("$VS" dump "$DIR/dump.hash") <("$JV" dump "$DIR/dump.hash") || die "dump outputs differ"
hyperfine -N --runs "$RUNS" --warmup "$WARMUP" --export-json "$DIR/dump.json" \
  -n "veritysetup dump" "$VS dump $DIR/dump.hash" \
  -n "jverity dump" "$JV dump $DIR/dump.hash" \
  -n "jverity --help" "$JV --help" \
  -n "java -version (JVM floor)" "$JAVA_HOME/bin/java -version" >&2
vd=$(median "$DIR/dump.json" 0); jd=$(median "$DIR/dump.json" 1); jh=$(median "$DIR/dump.json" 2); jf=$(median "$DIR/dump.json" 3)

echo
printf '%s\n' "${LINES[@]}"
awk -v v="$vd" -v j="$jd" -v h="$jh" -v f="$jf" 'BEGIN {
  printf "dump   veritysetup %7.1f ms   jverity %7.1f ms\n", v*1000, j*1000
  printf "--help jverity %.1f ms; java -version %.1f ms\n", h*1000, f*1000 }'
printf '%s\n' "${RATIOS[@]}"
awk -v v="$vd" -v j="$jd" -v h="$jh" 'BEGIN {
  printf "RATIO startup_dump_over_veritysetup %.2f\n", v/j
  printf "RATIO startup_help_ms %.0f\n", h*1000 }'
