# Shared by bin/jverity, bin/test and bench/: find a JDK >= 25 and run Maven with it.

JVERITY_MIN_JAVA=25

# The JVM options of a run (heap, JIT, native library, exit, AOT cache) live in jvm-options.sh,
# which the release's launcher sources too (it has no lib.sh: no Maven, no JDK search).
# shellcheck source=bin/jvm-options.sh
. "${BASH_SOURCE[0]%/*}/jvm-options.sh"

# Prints the feature version of the java at $1 (e.g. 25), or nothing.
jverity_java_version() {
  jverity_read_java_version "$1"
  [ -n "$JVERITY_JAVA_VERSION" ] && echo "$JVERITY_JAVA_VERSION"
  return 0
}

# Sets JVERITY_JAVA_VERSION to the feature version of the java at $1 (empty when unknown).
# Reads the JDK's release file when there is one (no JVM start, and no process, not even a
# subshell: bin/jverity pays this on every run), else asks the JVM.
jverity_read_java_version() {
  local home=${1%/bin/java} line v
  JVERITY_JAVA_VERSION=""
  if [ -f "$home/release" ]; then
    while IFS= read -r line; do
      case $line in
        JAVA_VERSION=*) v=${line#JAVA_VERSION=\"}; JVERITY_JAVA_VERSION=${v%%[.\"]*}; return 0 ;;
      esac
    done < "$home/release"
  else
    JVERITY_JAVA_VERSION=$("$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/{print $2; exit}')
  fi
}

# Prints a JAVA_HOME whose java is >= 25: $JAVA_HOME, then java on PATH, then /usr/lib/jvm/*.
jverity_find_jdk() {
  local c
  # $JAVA_HOME first, on its own: the common case costs no process at all.
  if [ -n "${JAVA_HOME:-}" ] && jverity_is_jdk "$JAVA_HOME"; then
    echo "$JAVA_HOME"; return 0
  fi
  for c in "$(dirname "$(dirname "$(readlink -f "$(command -v java 2>/dev/null || echo /nonexistent)")")")" \
           /usr/lib/jvm/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    if jverity_is_jdk "$c"; then
      echo "$c"; return 0
    fi
  done
  echo "jverity: needs a JDK $JVERITY_MIN_JAVA or newer (none in JAVA_HOME, PATH or /usr/lib/jvm)." >&2
  echo "  Install one, e.g. Temurin 25 (apt-get install temurin-25-jdk from Adoptium's repository)," >&2
  echo "  or set JAVA_HOME to it." >&2
  return 1
}

# Whether $1 is a JDK (java and javac) of version >= 25.
jverity_is_jdk() {
  local v
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 1
  jverity_read_java_version "$1/bin/java"
  v=$JVERITY_JAVA_VERSION
  [ -n "$v" ] && [ "${v%%.*}" -ge "$JVERITY_MIN_JAVA" ] 2>/dev/null
}

# Runs Maven in the project root with the JDK found above.
jverity_mvn() {
  command -v mvn >/dev/null || { echo "jverity: needs Maven (apt-get install maven)" >&2; return 1; }
  # Maven's own libraries call sun.misc.Unsafe; JDK 25 warns about it on every run.
  (cd "$ROOT" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" mvn -B -Dstyle.color=never "$@")
}

# Writes SIZE bytes of deterministic pseudo-random data (AES-128-CTR keystream, key/IV 0, as
# shared/bench does) to FILE, so root hashes are the same in every run.
jverity_bench_image() {
  local file=$1 size=$2
  openssl enc -aes-128-ctr -K 00000000000000000000000000000000 -iv 00000000000000000000000000000000 \
    -in /dev/zero 2>/dev/null | head -c "$size" > "$file" || true   # openssl dies of SIGPIPE
  [ "$(stat -c %s "$file")" = "$size" ] || { echo "bench: could not write $size bytes to $file" >&2; return 1; }
}

# Runs a class of jverity-bench (after a build) with the JDK found above.
jverity_bench_java() {
  jverity_mvn -q -DskipTests package >/dev/null
  # Class path, not module path: native access (pread through FFM) is granted to the unnamed module.
  # The native loops as bin/jverity loads them (JVERITY_NATIVE=off: Java only), so an in-process
  # bench hashes as the commands and the server do.
  local native=()
  if [ "${JVERITY_NATIVE:-}" != off ] && [ -f "$ROOT/jverity-core/target/native/libjverity.so" ]; then
    native=(-Djverity.native.library="$ROOT/jverity-core/target/native/libjverity.so")
  fi
  "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED ${native[@]+"${native[@]}"} \
    -cp "$ROOT/jverity-core/target/classes:$ROOT/jverity-nbd/target/classes:$ROOT/jverity-bench/target/classes" "$@"
}
