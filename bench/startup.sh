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
# then the installed runtime (the release's tarball, built by bin/release and extracted; the
# source tree's launcher beside it, in one hyperfine run per command), and the release's sizes:
#   RATIO startup_installed_<dump|help|format_64m>_over_source <bin/jverity median / installed>
#   SIZE <tarball|deb|installed|runtime> <MiB>
# (RELEASE=DIR takes the archives bin/release wrote in DIR instead of building them.)
# Greater than 1 means jverity (for the installed lines: the installed one) is faster. Outputs are compared first (untimed): root hashes and
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
for t in veritysetup hyperfine python3 cmp numfmt git; do
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

declare -a LINES RATIOS LINES2
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

# The installed runtime against the source tree's launcher: the release's tarball, extracted as a
# user installs it (its AOT cache trained at first use, untimed: the warm-up runs).
if [ -n "${RELEASE:-}" ]; then
  REL=$RELEASE
else
  echo "# building the release (untimed)" >&2
  REL=$DIR/release
  "$REPO/bin/release" "$REL" >/dev/null 2>&1 || die "bin/release failed"
fi
TARBALL=$(echo "$REL"/jverity-*-linux-x86_64.tar.gz) DEB=$(echo "$REL"/jverity_*_amd64.deb)
[ -f "$TARBALL" ] && [ -f "$DEB" ] || die "no tarball or .deb in $REL"
mkdir -p "$DIR/opt" "$DIR/cache"
tar -xzf "$TARBALL" -C "$DIR/opt"
IJ=$(echo "$DIR"/opt/jverity-*/bin/jverity)
export XDG_CACHE_HOME=$DIR/cache
jverity_bench_image "$DIR/data-64M" $((64 << 20))
cmp -s <("$JV" dump "$DIR/dump.hash") <("$IJ" dump "$DIR/dump.hash") || die "installed dump differs"
ir=$(JVERITY_NO_PROGRESS=1 "$IJ" format "$DIR/data-64M" "$DIR/ij.hash" --salt "$SALT" --uuid "$UUID" | root_of)
sr=$(JVERITY_NO_PROGRESS=1 "$JV" format "$DIR/data-64M" "$DIR/jv.hash" --salt "$SALT" --uuid "$UUID" | root_of)
[ -n "$ir" ] && [ "$ir" = "$sr" ] && cmp -s "$DIR/ij.hash" "$DIR/jv.hash" || die "installed format differs"
declare -a INSTALLED
for c in dump help format_64m; do
  case $c in
    dump) args="dump $DIR/dump.hash" ;;
    help) args="--help" ;;
    format_64m) args="format $DIR/data-64M $DIR/jv.hash --salt $SALT --uuid $UUID" ;;
  esac
  hyperfine -N --runs "$RUNS" --warmup "$WARMUP" --export-json "$DIR/i-$c.json" \
    -n "bin/jverity $c" "$JV $args" -n "installed jverity $c" "$IJ $args" >&2
  s=$(median "$DIR/i-$c.json" 0); i=$(median "$DIR/i-$c.json" 1)
  LINES2+=("$(printf '%-10s source tree %7.1f ms   installed %7.1f ms' "$c" "$(awk -v x="$s" 'BEGIN{print x*1000}')" "$(awk -v x="$i" 'BEGIN{print x*1000}')")")
  INSTALLED+=("RATIO startup_installed_${c}_over_source $(awk -v s="$s" -v i="$i" 'BEGIN{printf "%.2f", s/i}')")
done
mib() { awk -v b="$1" 'BEGIN{printf "%.1f", b/1048576}'; }
printf '%s\n' "${LINES2[@]}"
printf '%s\n' "${INSTALLED[@]}"
echo "SIZE tarball $(mib "$(stat -c %s "$TARBALL")")"
echo "SIZE deb $(mib "$(stat -c %s "$DEB")")"
echo "SIZE installed $(mib "$(du -sb "$DIR"/opt/jverity-* | cut -f1)")"
echo "SIZE runtime $(mib "$(du -sb "$DIR"/opt/jverity-*/runtime | cut -f1)")"
