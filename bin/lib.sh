# Shared by bin/jverity, bin/test and bench/: find a JDK >= 25 and run Maven with it.

JVERITY_MIN_JAVA=25

# Prints the feature version of the java at $1 (e.g. 25), or nothing.
# Reads the JDK's release file when there is one (no JVM start, and no process: bin/jverity pays
# this on every run), else asks the JVM.
jverity_java_version() {
  local home=${1%/bin/java} line v
  if [ -f "$home/release" ]; then
    while IFS= read -r line; do
      case $line in
        JAVA_VERSION=*) v=${line#JAVA_VERSION=\"}; echo "${v%%[.\"]*}"; return ;;
      esac
    done < "$home/release"
  else
    "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/{print $2; exit}'
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
  v=$(jverity_java_version "$1/bin/java")
  [ -n "$v" ] && [ "${v%%.*}" -ge "$JVERITY_MIN_JAVA" ] 2>/dev/null
}

# Runs Maven in the project root with the JDK found above.
jverity_mvn() {
  command -v mvn >/dev/null || { echo "jverity: needs Maven (apt-get install maven)" >&2; return 1; }
  # Maven's own libraries call sun.misc.Unsafe; JDK 25 warns about it on every run.
  (cd "$ROOT" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" mvn -B -Dstyle.color=never "$@")
}

# Records an AOT cache for the jar by formatting and verifying a small temporary image.
jverity_train_aot() {
  local jar=$1 aot=$2 tmp native=()
  tmp=$(mktemp -d)
  # With the native hashing loop when the build made it, so that its classes are in the cache too.
  [ -f "$ROOT/jverity-core/target/native/libjverity.so" ] &&
    native=(-Djverity.native.library="$ROOT/jverity-core/target/native/libjverity.so")
  # One process runs the commands users run most (format, verify, dump, read, digest of a big file
  # and of many small ones): the cache keeps their classes and the profiles of their hashing loops.
  # The JVM options must be those of the runs that use the cache (bin/jverity), or it is refused.
  "$JAVA_HOME/bin/java" -XX:AOTCacheOutput="$aot" -Xlog:aot=off -Xlog:cds=off ${native[@]+"${native[@]}"} \
    --enable-native-access=ALL-UNNAMED -cp "$jar" org.jverity.cli.AotTraining "$tmp" >/dev/null 2>&1 || rm -f "$aot"
  rm -rf "$tmp"
  [ -s "$aot" ]
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
  "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
    -cp "$ROOT/jverity-core/target/classes:$ROOT/jverity-nbd/target/classes:$ROOT/jverity-bench/target/classes" "$@"
}

# The JVM options of a server (`open`, `serve`), given jverity's arguments, in the array
# JVERITY_SERVER_OPTS (empty for other commands; no process started for them: bin/jverity calls
# this on every run). A JVM left to itself takes a quarter of the machine's memory as its heap and
# keeps what it grew to; a server's memory must be what its configuration says: the hash block
# cache budget (--cache-size, or [generic] cache-size in serve's config; HashBlockCache's 64 MiB
# by default) plus the read buffers of requests in flight (ServerLimits.DEFAULT_BYTES_IN_FLIGHT,
# 32 MiB) plus 32 MiB for the rest (connections, requests waiting, the JVM's own objects, room to
# collect in). The serial collector adds no threads and almost no memory of its own (G1's tables
# were ~40 MiB here) and its pauses are short on such heaps; above 1 GiB, G1. MaxHeapFreeRatio
# makes the heap shrink at the collection an idle server runs (org.jverity.nbd.IdleHeap).
# $JVERITY_JAVA_OPTS comes after these in bin/jverity, so -Xmx there wins.
jverity_server_java_opts() {
  JVERITY_SERVER_OPTS=()
  local a command="" cache="" next="" config="" mib
  for a in "$@"; do
    if [ -z "$command" ]; then
      case $a in -*) continue ;; *) command=$a; case $a in open|serve) continue ;; *) return 0 ;; esac ;; esac
    fi
    if [ "$next" = cache ]; then cache=$a; next=""; continue; fi
    case $a in
      --cache-size) next=cache ;;
      --cache-size=*) cache=${a#--cache-size=} ;;
      -*) ;;
      *) [ -z "$config" ] && config=$a ;;
    esac
  done
  [ -n "$command" ] || return 0
  if [ "$command" = serve ] && [ -r "$config" ] && [ -f "$config" ]; then
    # The last cache-size of [generic]; a config that does not parse fails in jverity itself.
    cache=$(awk 'NR == 1 { sub(/^\357\273\277/, "") } { gsub(/^[ \t]+|[ \t\r]+$/, "") }
      /^\[/ { generic = ($0 ~ /^\[[ \t]*generic[ \t]*\]$/); next }
      generic && /^cache-size[ \t]*=/ { v = $0; sub(/^[^=]*=[ \t]*/, "", v); last = v }
      END { print last }' "$config" 2>/dev/null)
  fi
  mib=64
  if [[ $cache =~ ^0*([0-9]{1,12})([KMGTkmgt]|[KMGT]iB)?$ ]]; then  # ByteSize's syntax
    case ${BASH_REMATCH[2]:0:1} in
      "") mib=$(( (10#${BASH_REMATCH[1]} + (1 << 20) - 1) >> 20 )) ;;
      K|k) mib=$(( (10#${BASH_REMATCH[1]} + 1023) >> 10 )) ;;
      M|m) mib=$(( 10#${BASH_REMATCH[1]} )) ;;
      G|g) mib=$(( 10#${BASH_REMATCH[1]} << 10 )) ;;
      T|t) mib=$(( 10#${BASH_REMATCH[1]} << 20 )) ;;
    esac
  fi
  mib=$(( mib + 32 + 32 ))
  if [ "$mib" -lt 1024 ]; then JVERITY_SERVER_OPTS=(-XX:+UseSerialGC); else JVERITY_SERVER_OPTS=(-XX:+UseG1GC); fi
  case " ${JVERITY_JAVA_OPTS:-} " in
    *" -XX:+Use"*"GC "*) JVERITY_SERVER_OPTS=() ;;  # the user's collector: two would stop the JVM
  esac
  JVERITY_SERVER_OPTS+=(-Xms16m "-Xmx${mib}m" -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 -XX:-ShrinkHeapInSteps)
}

# Sets JVERITY_JIT_OPTS for a command line whose bytes all go through the native loops (call it
# only when libjverity.so is loaded): format, verify and digest run the quick compiler alone (C1).
# Their Java is bookkeeping per chunk or per file, which C2 compiles too late to pay off in a short
# process while its compilations take a core from the hashing. Measured on 2 cores (medians of 5):
# verify 2 GiB 1.25 -> 1.09 s, format 2 GiB 1.20 -> 1.08 s, digest --recursive over 100,000 files
# 2.31 -> 1.95 s; but format --fec-device 256 MiB 0.45 -> 0.53 s, so FEC keeps C2.
jverity_jit_opts() {
  JVERITY_JIT_OPTS=()
  local a verb=""
  for a in "$@"; do
    case $a in --fec-*) return 0 ;; esac
    if [ -z "$verb" ]; then case $a in -*) ;; *) verb=$a ;; esac; fi
  done
  case $verb in format | verify | digest) JVERITY_JIT_OPTS=(-XX:TieredStopAtLevel=1) ;; esac
}
