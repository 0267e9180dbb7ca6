#!/usr/bin/env bash
# The release's install test (.ci/run runs it after bin/test): builds the release with bin/release,
# then runs the installed jverity as a user without a JDK would: from the tarball extracted into
# an empty directory and from the .deb unpacked by dpkg-deb -x, through a symlink in another
# directory, with an environment holding no JAVA_HOME and a PATH with no java on it. When root on
# a throw-away machine (CI=true), the .deb is also installed with dpkg -i and removed again.
# A second build with the same SOURCE_DATE_EPOCH must give byte-identical archives.
# Each step says what failed; the exit status is 1 on the first failure.
set -Eeuo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/jverity-release-test.XXXXXX")
# The server an exercise started is stopped whatever happens, then the scratch tree goes.
server=""
trap '[ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$T"' EXIT
fail() { echo "test-release: FAILED: $*" >&2; exit 1; }
# A command that fails outside a check still says where.
trap 'echo "test-release: FAILED at line $LINENO: $BASH_COMMAND" >&2' ERR
step() { echo "test-release: $*" >&2; }
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$REPO" log -1 --format=%ct HEAD)}

step "bin/release (1 of 2)"
"$REPO/bin/release" "$T/out1" || fail "bin/release"
tarball=$(echo "$T"/out1/jverity-*-linux-x86_64.tar.gz)
deb=$(echo "$T"/out1/jverity_*_amd64.deb)
[ -f "$tarball" ] && [ -f "$deb" ] || fail "bin/release wrote no tarball or .deb: $(ls "$T/out1")"
(cd "$T/out1" && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not match the archives"

# Every tag lintian has, pedantic and informational ones too: what stays is in the package's
# overrides (dist/debian/lintian-overrides) with why, and an override no longer used is a tag too.
step "lintian -I --pedantic: nothing but what dist/debian/lintian-overrides lists"
command -v lintian >/dev/null || fail "lintian is missing (apt-get install lintian)"
said=$(lintian -I --pedantic "$deb" 2>&1 | grep -vx 'running with root privileges is not recommended!') ||
  [ $? = 1 ] || fail "lintian failed: $said" # grep's 1: no line left
[ -z "$said" ] || fail "lintian: $said"

# A JDK-free environment: no JAVA_HOME, PATH without any java.
command -v nbdcopy >/dev/null || fail "nbdcopy is missing (apt-get install libnbd-bin)"
# The system's commands, but none of a JDK's (Debian's default java is a JDK 17 in /usr/bin).
mkdir -p "$T/home" "$T/path"
for f in /usr/bin/* /usr/sbin/*; do
  case $(readlink -f "$f") in /usr/lib/jvm/*) continue ;; esac
  [ -e "$T/path/${f##*/}" ] || ln -s "$f" "$T/path/${f##*/}"
done
run() { env -i HOME="$T/home" PATH="$T/path" "$@"; }
! run sh -c 'command -v java' >/dev/null || fail "the clean PATH has a java on it: the test would not show the runtime is bundled"

# Runs the commands a new user runs, through the launcher at $1 (a symlink), from directory $2.
exercise() {
  local jverity=$1 work=$2 root out
  mkdir -p "$work"
  cd "$work"
  run "$jverity" --version | grep -q "^jverity .* (commit $(git -C "$REPO" rev-parse --short=7 HEAD))" ||
    fail "$jverity --version does not name the commit: $(run "$jverity" --version 2>&1)"
  head -c 8388608 /dev/urandom > data.img
  out=$(run "$jverity" format data.img data.hash) || fail "format: $out"
  root=$(echo "$out" | awk -F':[ \t]*' '/^Root hash/ {print $2}')
  [ ${#root} -eq 64 ] || fail "format printed no root hash: $out"
  run "$jverity" verify data.img data.hash "$root" || fail "verify"
  run "$jverity" dump data.hash | grep -q "^Hash type:" || fail "dump"
  run "$jverity" digest data.img | grep -q "^sha256:" || fail "digest"
  cp data.img avb.img
  run "$jverity" avb add_hashtree_footer --image avb.img --partition_name system --partition_size 16777216 \
    --algorithm SHA256_RSA2048 --key "$REPO/jverity-testkit/src/main/resources/avb-testkeys/testkey_rsa2048.pem" ||
    fail "avb add_hashtree_footer"
  run "$jverity" avb info_image --image avb.img | grep -q "Hashtree descriptor" || fail "avb info_image"
  # env itself in the background, not the run function: $! must be the server (env execs the
  # launcher, which execs java), not a subshell whose killing would leave the server running.
  env -i HOME="$T/home" PATH="$T/path" "$jverity" open data.img x data.hash "$root" --port 0 > open.out 2> open.err &
  local pid=$! uri=""
  server=$pid
  for _ in $(seq 100); do uri=$(head -1 open.out 2>/dev/null); [ -n "$uri" ] && break; sleep 0.1; done
  [ -n "$uri" ] || { kill $pid 2>/dev/null || true; fail "open printed no URI: $(cat open.err)"; }
  nbdcopy "$uri" copy.img || { kill $pid; fail "nbdcopy $uri"; }
  kill $pid 2>/dev/null || fail "open exited before it was stopped: $(cat open.err)"
  wait $pid 2>/dev/null || true
  server=""
  cmp -s copy.img data.img || fail "the export's bytes are not the image's"
  cd "$T"
}

step "the tarball, extracted and run through a symlink without a JDK"
mkdir -p "$T/opt" "$T/bin"
tar -xzf "$tarball" -C "$T/opt"
ln -s "$(echo "$T"/opt/jverity-*/bin/jverity)" "$T/bin/jverity"
exercise "$T/bin/jverity" "$T/w1"
run man -l "$(echo "$T"/opt/jverity-*/share/man/man8/jverity-format.8)" 2>&1 | grep -q "jverity" ||
  fail "man -l jverity-format.8 renders nothing"

step "the .deb, unpacked by dpkg-deb -x"
dpkg-deb -x "$deb" "$T/root"
ln -s "$T/root/usr/lib/jverity/bin/jverity" "$T/bin/jverity-deb"
exercise "$T/bin/jverity-deb" "$T/w2"

# The README's Install section, block by block, as a user runs them: the package, the tarball,
# then a build from a clone (the second build, compared with the first).
readme_blocks() {
  awk -v dir="$T/readme" '
    /^## / { install = ($0 == "## Install"); next }
    install && /^```sh$/ { n++; file = dir "/block" n ".sh"; inblock = 1; next }
    inblock && /^```$/ { inblock = 0; close(file); next }
    inblock { print > file }' "$REPO/README.md"
  [ -f "$T/readme/block3.sh" ] || fail "README's Install section has not its three blocks (deb, tarball, source)"
}
# Root needs no sudo, and a CI machine may have none.
block() { (cd "$1" && bash -euc 'command -v sudo >/dev/null || sudo() { "$@"; }; '"$(cat "$T/readme/block$2.sh")"); }

if [ "$(id -u)" = 0 ] && [ "${CI:-}" = true ]; then
  mkdir -p "$T/readme"
  readme_blocks
  for p in /usr/bin/jverity /usr/local/bin/jverity; do
    [ ! -e "$p" ] || fail "$p exists already: this machine is not the throw-away one the test installs on"
  done
  step "README: the package (apt install), then dpkg -P"
  block "$T/out1" 1 || fail "README's package install"
  exercise /usr/bin/jverity "$T/w3"
  man jverity-format 2>/dev/null | grep -q "jverity" || fail "man jverity-format after the package's install"
  dpkg -P jverity >/dev/null || fail "dpkg -P jverity"
  step "README: the tarball under /opt and its symlink"
  block "$T/out1" 2 || fail "README's tarball install"
  exercise /usr/local/bin/jverity "$T/w4"
  rm -rf /opt/jverity-* /usr/local/bin/jverity
  step "README: from source (bin/release in a clone, apt install), the second build"
  git clone -q "$REPO" "$T/clone"
  block "$T/clone" 3 >/dev/null 2>&1 || fail "README's from-source install"
  exercise /usr/bin/jverity "$T/w5"
  dpkg -P jverity >/dev/null || fail "dpkg -P jverity"
  second=$T/clone/dist
else
  step "bin/release (2 of 2)"
  "$REPO/bin/release" "$T/out2" >/dev/null 2>&1 || fail "second bin/release"
  second=$T/out2
fi
step "two builds of one commit: the same bytes"
for f in "$T"/out1/*; do
  cmp "$f" "$second/${f##*/}" || fail "${f##*/} differs between two builds of one commit"
done
step "passed"
