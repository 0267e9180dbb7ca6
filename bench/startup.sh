#!/usr/bin/env bash
# startup.sh — whole-process wall time of jverity's commands where the JVM's start weighs most,
# against their peers, through bin/jverity as users run them: `format` against `veritysetup format`
# on small and medium images (16 MiB, 64 MiB, 256 MiB, 1 GiB), `dump` against `veritysetup dump`,
# `digest` of one 4 KiB file against `fsverity digest`, and `--help` and `status`, each against the
# floor: an empty main through the same launcher (same JVM, options and AOT cache as dump) and
# `java -version`. One hyperfine run per size, one for the small commands, so that every tool sees
# the same machine.
#
# Usage: bench/startup.sh [SIZE...]     default: 16M 64M 256M 1G
# Env:   RUNS=10 WARMUP=2               hyperfine runs per command (medians are compared)
#        JVERITY_JAVA_OPTS=...          passed through to bin/jverity
# Output: a table, then the last lines, one per size and then the small commands:
#   RATIO startup_<size>_over_veritysetup <veritysetup median / jverity median>
#   RATIO startup_dump_over_veritysetup <x.xx>
#   RATIO startup_digest_4k_over_fsverity <fsverity median / jverity median>
#   RATIO startup_help_ms <jverity --help median in ms>
#   RATIO startup_floor_ms <empty main through bin/jverity, ms>   RATIO startup_java_version_ms <ms>
#   RATIO startup_<dump|help|status>_over_floor_ms <median minus the floor's, ms: target <= 20>
#   RATIO startup_digest_4k_over_dump_ms <digest of 4 KiB minus dump, ms: target <= 10>
# then the installed runtime (the release's tarball, built by bin/release and extracted; the
# source tree's launcher beside it, in one hyperfine run per command), and the release's sizes:
#   RATIO startup_installed_<dump|help|format_64m>_over_source <bin/jverity median / installed>
#   RATIO startup_installed_64m_over_veritysetup <veritysetup median / installed jverity's, format 64 MiB>
#   SIZE <tarball|deb|installed|runtime> <MiB>
# (RELEASE=DIR takes the archives bin/release wrote in DIR instead of building them.)
# Greater than 1 means jverity (for the installed lines: the installed one) is faster. Outputs are
# compared first (untimed): root hashes, hash files, dump and digest lines must be identical, or
# the run fails.
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
for t in veritysetup fsverity hyperfine python3 cmp numfmt git; do
  command -v "$t" >/dev/null || die "missing tool: $t (Debian: apt-get install cryptsetup-bin fsverity hyperfine)"
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
# digest of one 4 KiB file against fsverity's (same line out).
head -c 4096 /dev/urandom > "$DIR/one-4k"
cmp -s <(cd "$DIR" && fsverity digest one-4k) <(cd "$DIR" && "$JV" digest one-4k) || die "digest outputs differ"
"$JV" status >/dev/null || die "jverity status failed"
# The floor: an empty main through the same launcher, with the same JVM options as dump and an
# AOT cache of its own (its class must come from a cache: a class that is in none is looked for in
# jverity.jar first, whose 9,600 entries take ~12 ms to open). It runs a copy of bin/jverity beside
# it (so that it finds the same tree) whose AOT cache and main class are the floor's. And the
# JVM's own start: java -version.
mkdir -p "$DIR/floor"
echo 'public final class Floor { public static void main(String[] a) { if (a.length > 0) Runtime.getRuntime().halt(0); } }' > "$DIR/floor/Floor.java"
"$JAVA_HOME/bin/javac" -d "$DIR/floor" "$DIR/floor/Floor.java" && "$JAVA_HOME/bin/jar" cf "$DIR/floor.jar" -C "$DIR/floor" Floor.class ||
  die "could not build the floor's empty main"
JAR="$REPO/jverity-cli/target/jverity.jar"
jverity_java_opts "$REPO/jverity-core/target/native/libjverity.so" /nonexistent dump "$DIR/dump.hash"
"$JAVA_HOME/bin/java" -XX:AOTCacheOutput="$DIR/floor.aot" -Xlog:aot=off -Xlog:cds=off "${JVERITY_OPTS[@]}" \
  -cp "$JAR:$DIR/floor.jar" Floor >/dev/null 2>&1 && [ -s "$DIR/floor.aot" ] || die "could not train the floor's AOT cache"
FLOOR="$REPO/bin/.jverity-floor.$$"
trap 'rm -rf "$DIR" "$FLOOR"' EXIT
sed -e "s|^AOT=.*|AOT=$DIR/floor.aot|" \
  -e "s|-cp \"\$JAR\" org.jverity.cli.Main \"\$@\"|-cp \"\$JAR:$DIR/floor.jar\" Floor \"\$@\"|" "$JV" > "$FLOOR"
chmod +x "$FLOOR"
grep -q ' Floor "\$@"' "$FLOOR" && grep -q "^AOT=$DIR/floor.aot" "$FLOOR" ||
  die "bin/jverity's lines changed: the floor's copy no longer runs Floor from its cache"
"$FLOOR" dump "$DIR/dump.hash" || die "the floor's launcher failed"
hyperfine -N --runs "$RUNS" --warmup "$WARMUP" --export-json "$DIR/dump.json" \
  -n "veritysetup dump" "$VS dump $DIR/dump.hash" \
  -n "jverity dump" "$JV dump $DIR/dump.hash" \
  -n "jverity --help" "$JV --help" \
  -n "jverity status" "$JV status" \
  -n "fsverity digest (4 KiB)" "fsverity digest $DIR/one-4k" \
  -n "jverity digest (4 KiB)" "$JV digest $DIR/one-4k" \
  -n "empty main through bin/jverity (floor)" "$FLOOR dump $DIR/dump.hash" \
  -n "java -version (JVM floor)" "$JAVA_HOME/bin/java -version" >&2
ms() { awk -v x="$(median "$DIR/dump.json" "$1")" 'BEGIN{printf "%.1f", x*1000}'; }
vd=$(ms 0) jd=$(ms 1) jh=$(ms 2) js=$(ms 3) fd=$(ms 4) jg=$(ms 5) fl=$(ms 6) jf=$(ms 7)

echo
printf '%s\n' "${LINES[@]}"
awk -v v="$vd" -v j="$jd" -v h="$jh" -v s="$js" -v fd="$fd" -v g="$jg" -v fl="$fl" -v f="$jf" 'BEGIN {
  printf "dump   veritysetup %7.1f ms   jverity %7.1f ms\n", v, j
  printf "digest of 4 KiB   fsverity %7.1f ms   jverity %7.1f ms\n", fd, g
  printf "--help %.1f ms, status %.1f ms; floor: empty main through bin/jverity %.1f ms, java -version %.1f ms\n", h, s, fl, f }'
printf '%s\n' "${RATIOS[@]}"
awk -v v="$vd" -v j="$jd" -v h="$jh" -v s="$js" -v fd="$fd" -v g="$jg" -v fl="$fl" -v f="$jf" 'BEGIN {
  printf "RATIO startup_dump_over_veritysetup %.2f\n", v/j
  printf "RATIO startup_digest_4k_over_fsverity %.2f\n", fd/g
  printf "RATIO startup_help_ms %.0f\n", h
  printf "RATIO startup_floor_ms %.0f\n", fl
  printf "RATIO startup_java_version_ms %.0f\n", f
  printf "RATIO startup_dump_over_floor_ms %.0f\n", j-fl
  printf "RATIO startup_help_over_floor_ms %.0f\n", h-fl
  printf "RATIO startup_status_over_floor_ms %.0f\n", s-fl
  printf "RATIO startup_digest_4k_over_dump_ms %.0f\n", g-j }'

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
# New hash files: format keeps what lies past the tree in an existing one (the 1 GiB run's).
rm -f "$DIR/ij.hash" "$DIR/jv.hash"
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
  # format also beside veritysetup: the installed jverity is what users run.
  peer=()
  [ "$c" = format_64m ] && peer=(-n "veritysetup $c" "$VS format $DIR/data-64M $DIR/vs.hash --salt $SALT --uuid $UUID")
  hyperfine -N --runs "$RUNS" --warmup "$WARMUP" --export-json "$DIR/i-$c.json" \
    -n "bin/jverity $c" "$JV $args" -n "installed jverity $c" "$IJ $args" ${peer[@]+"${peer[@]}"} >&2
  s=$(median "$DIR/i-$c.json" 0); i=$(median "$DIR/i-$c.json" 1)
  if [ "$c" = format_64m ]; then
    v=$(median "$DIR/i-$c.json" 2)
    INSTALLED+=("RATIO startup_installed_64m_over_veritysetup $(awk -v v="$v" -v i="$i" 'BEGIN{printf "%.2f", v/i}')")
  fi
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
