# jvm-options.sh — the JVM options jverity runs with, sourced by bin/jverity (through bin/lib.sh)
# and by the release's launcher (dist/launcher), so a source-tree run and an installed one start the
# same JVM. Starts no process for a one-shot command: it runs on every command.

# jverity_java_opts NATIVE_LIB AOT_CACHE ARGS...: the options for jverity's ARGS, in the array
# JVERITY_OPTS (then come $JVERITY_JAVA_OPTS, -cp and the main class). NATIVE_LIB and AOT_CACHE are
# used when the files exist.
jverity_java_opts() {
  local native=$1 aot=$2
  shift 2
  JVERITY_OPTS=()
  [ -f "$aot" ] && JVERITY_OPTS+=(-XX:AOTCache="$aot" -Xlog:aot=off -Xlog:cds=off)
  # The native hashing loop the build made (gcc and libssl-dev present): one-shot commands hash at
  # libcrypto's full speed from the first block. JVERITY_NATIVE=off hashes in Java (same results).
  if [ "${JVERITY_NATIVE:-}" != off ] && [ -f "$native" ]; then
    JVERITY_OPTS+=(-Djverity.native.library="$native")
    jverity_jit_opts "$@"
    JVERITY_OPTS+=(${JVERITY_JIT_OPTS[@]+"${JVERITY_JIT_OPTS[@]}"})
  fi
  # A one-shot command may halt once its output is flushed (no logging backend started for the
  # exit: ~30 ms), unless JVM options were added: a recording or an agent may write at exit.
  [ -z "${JVERITY_JAVA_OPTS:-}${JAVA_TOOL_OPTIONS:-}${JDK_JAVA_OPTIONS:-}" ] && JVERITY_OPTS+=(-Djverity.halt=true)
  # -cp, not -jar (see bin/jverity): the manifest's Enable-Native-Access is given as an option, as
  # in the training run (the AOT cache is refused when they differ).
  JVERITY_OPTS+=(--enable-native-access=ALL-UNNAMED)
  # A server's heap is sized from its budgets; the cache accepts these options.
  jverity_server_java_opts "$@"
  JVERITY_OPTS+=(${JVERITY_SERVER_OPTS[@]+"${JVERITY_SERVER_OPTS[@]}"})
  jverity_oneshot_opts "$@"
  JVERITY_OPTS+=(${JVERITY_ONESHOT_OPTS[@]+"${JVERITY_ONESHOT_OPTS[@]}"})
}

# The JVM options of a one-shot command (not a server or the demo), in JVERITY_ONESHOT_OPTS: the
# serial collector, which starts in less time than G1 (no worker threads, no region tables) and
# suits what these allocate (buffers reused, or short-lived); and for those that read a few blocks
# and answer (dump, status, help, ...) the quick compiler alone. Measured (java alone, medians of
# 20-30): dump 48.2 -> 43.5 ms, format 64 MiB 105 -> 88 ms, avb info_image 61.7 -> 59.2 ms, digest
# --recursive over 20,000 files of 1-16 KiB 326 -> 290 ms, format 1 GiB 326 -> 333 ms (noise).
# Empty for other commands, and when $JVERITY_JAVA_OPTS picks a collector.
jverity_oneshot_opts() {
  JVERITY_ONESHOT_OPTS=()
  local a c1=yes
  for a in "$@"; do
    case $a in
      -*) ;;
      dump | status | close | reload | cat) break ;;
      digest | format | verify | read | repair | avb | ddi) c1=""; break ;;
      *) return 0 ;;
    esac
  done
  case " ${JVERITY_JAVA_OPTS:-} " in
    *" -XX:+Use"*"GC "*) return 0 ;;
  esac
  JVERITY_ONESHOT_OPTS=(-XX:+UseSerialGC)
  [ -n "$c1" ] && JVERITY_ONESHOT_OPTS+=(-XX:TieredStopAtLevel=1)
  return 0
}

# The AOT caches, one per group of commands (org.jverity.cli.AotTraining says why): a JVM loads
# every class of its cache as it starts, so a cache holds one group's classes only.
JVERITY_AOT_GROUPS="quick verity remote avb server"

# jverity_aot_group ARGS...: the group whose AOT cache jverity's ARGS start from, in
# JVERITY_AOT_GROUP (one of JVERITY_AOT_GROUPS), by the command's name, and for the dm-verity
# commands whether an argument is a URL (the HTTP client's classes are a third of a cache);
# commands no training runs (demo, sign, ...) start from the quick one, whose classes every
# command uses.
jverity_aot_group() {
  local a verb=""
  JVERITY_AOT_GROUP=quick
  for a in "$@"; do
    if [ -z "$verb" ]; then
      case $a in
        -*) ;;
        format | verify | read | repair) verb=$a; JVERITY_AOT_GROUP=verity ;;
        avb) JVERITY_AOT_GROUP=avb; return 0 ;;
        open | serve) JVERITY_AOT_GROUP=server; return 0 ;;
        *) return 0 ;;
      esac
    else
      case $a in *://*) JVERITY_AOT_GROUP=remote; return 0 ;; esac
    fi
  done
}

# jverity_train_aot JAVA JAR AOT GROUP [NATIVE_LIB]: records GROUP's AOT cache for the jar at AOT by
# running that group's commands on small temporary files; fails (and leaves no AOT) if it could not.
jverity_train_aot() {
  local java=$1 jar=$2 aot=$3 group=$4 lib=${5:-} tmp native=() clean
  tmp=$(mktemp -d)
  # Ctrl-C or SIGTERM while it trains ends the command too (java exits 130 on SIGINT, so bash
  # would go on), leaving no scratch files, no half a cache and no JDK configuration file.
  clean="rm -rf $(printf %q "$tmp"); rm -f $(printf %q "$aot") $(printf %q "$aot.config")"
  # shellcheck disable=SC2064 # expanded now, on purpose
  trap "$clean; exit 130" INT
  # shellcheck disable=SC2064
  trap "$clean; exit 143" TERM
  # With the native hashing loop when the build made it, so that its classes are in the cache too.
  [ -n "$lib" ] && [ -f "$lib" ] && native=(-Djverity.native.library="$lib")
  # The JVM options must be those of the runs that use the cache (jverity_java_opts), or it is refused.
  "$java" -XX:AOTCacheOutput="$aot" -Xlog:aot=off -Xlog:cds=off ${native[@]+"${native[@]}"} \
    --enable-native-access=ALL-UNNAMED -cp "$jar" org.jverity.cli.AotTraining "$group" "$tmp" >/dev/null 2>&1 || rm -f "$aot"
  trap - INT TERM
  rm -rf "$tmp"
  [ -s "$aot" ]
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
# 2.31 -> 1.95 s; read of 2 GiB (its blocks hashed natively in groups) to /dev/null 1.28 -> 1.14 s;
# but format --fec-device 256 MiB 0.45 -> 0.53 s, so FEC keeps C2.
jverity_jit_opts() {
  JVERITY_JIT_OPTS=()
  local a verb=""
  local a verb="" fec=""
  for a in "$@"; do
    case $a in --fec-* | --fec_*) return 0 ;; --do_not_generate_fec | --do-not-generate-fec) fec=no ;; esac
    if [ -z "$verb" ]; then case $a in -*) ;; *) verb=$a ;; esac; fi
  done
  case $verb in format | verify | digest | read | ddi) JVERITY_JIT_OPTS=(-XX:TieredStopAtLevel=1) ;; esac
  # avb: the same unless add_hashtree_footer computes FEC (its default): 16 MiB without FEC
  # 96.8 -> 83.5 ms, info_image 59.2 -> 52.0 ms.
  if [ "$verb" = avb ]; then
    case " $* " in
      *" add_hashtree_footer "*) [ "$fec" = no ] && JVERITY_JIT_OPTS=(-XX:TieredStopAtLevel=1) ;;
      *) JVERITY_JIT_OPTS=(-XX:TieredStopAtLevel=1) ;;
    esac
  fi
  return 0
}
