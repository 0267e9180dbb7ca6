# bench/lib.sh — what the hyperfine-driven bench scripts (avb.sh, fec.sh, format-verify.sh) share:
# their tools and arguments checked, one hyperfine invocation over named commands, its medians read
# back, and the ratio they end with. Sourced, after the script has defined die() and JV.

# bench_setup SIZE_ARG: veritysetup and hyperfine (installed when root on Debian), the other tools
# checked; sets VS (veritysetup's path), JSONTOOL, SIZE (bytes, a multiple of 4096) and JV_VERSION
# (which builds jverity first, untimed); checks RUNS (>= 1) and WARMUP (>= 0).
bench_setup() {
  export PATH="$PATH:/usr/sbin:/sbin"
  local need=() t
  command -v veritysetup >/dev/null || need+=(cryptsetup-bin)
  command -v hyperfine >/dev/null || need+=(hyperfine)
  if [ ${#need[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "# installing ${need[*]}" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
  for t in veritysetup hyperfine openssl numfmt awk cmp; do
    command -v "$t" >/dev/null || die "missing tool: $t (Debian: apt-get install cryptsetup-bin hyperfine)"
  done
  bench_json_tool
  VS=$(command -v veritysetup)
  SIZE=$(numfmt --from=iec "$1") || die "bad SIZE: $1"
  [ "$SIZE" -gt 0 ] && [ $((SIZE % 4096)) -eq 0 ] || die "SIZE must be a positive multiple of 4096 (got $SIZE)"
  [[ $RUNS =~ ^[0-9]+$ ]] && [ "$RUNS" -ge 1 ] || die "RUNS must be >= 1"
  [[ $WARMUP =~ ^[0-9]+$ ]] || die "WARMUP must be >= 0"
  echo "# building jverity (untimed): $JV --version" >&2
  JV_VERSION=$("$JV" --version) || die "bin/jverity --version failed (build?)"
}

# Sets JSONTOOL to jq, else python3; dies without either (hyperfine's results are JSON).
bench_json_tool() {
  if command -v jq >/dev/null; then JSONTOOL=jq
  elif command -v python3 >/dev/null; then JSONTOOL=python3
  else die "needs jq or python3 to read hyperfine's JSON"; fi
}

# bench_scratch NAME NEED_KB: a scratch directory of NEED_KB free, removed on exit: in /dev/shm
# when it fits there with memory to spare, else in $TMPDIR or /tmp (read into page cache once).
# Sets DIR and WHERE (said in the report).
bench_scratch() {
  local name=$1 need=$2 mem
  DIR=""
  trap '[ -n "$DIR" ] && rm -rf "$DIR"; true' EXIT
  trap 'exit 130' INT TERM
  mem=$(awk '/MemAvailable/{print $2}' /proc/meminfo)
  if [ -d /dev/shm ] && [ "$(bench_avail_kb /dev/shm)" -gt "$need" ] && [ "$mem" -gt $((need * 2)) ]; then
    DIR=$(mktemp -d "/dev/shm/$name.XXXXXX"); WHERE="tmpfs /dev/shm (page cache)"
  elif [ "$(bench_avail_kb "${TMPDIR:-/tmp}")" -gt "$need" ]; then
    DIR=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
    WHERE="$(dirname "$DIR") on $(df -P "$DIR" | awk 'NR==2{print $1}') (read once into page cache)"
  else
    die "not enough space: need $need KiB in /dev/shm or ${TMPDIR:-/tmp}"
  fi
}

bench_avail_kb() { df -Pk "$1" 2>/dev/null | awk 'NR==2{print $4; f=1} END{if (!f) print 0}'; }

# bench_roots: checks ROOTS (FEC parity bytes, 2..24, as veritysetup takes them).
bench_roots() {
  [[ $ROOTS =~ ^[0-9]+$ ]] && [ "$ROOTS" -ge 2 ] && [ "$ROOTS" -le 24 ] || die "ROOTS must be 2..24"
}

# bench_hyperfine JSON DIR RUNS WARMUP NAME CMD [NAME CMD ...]
# One hyperfine invocation, all commands back to back (so they share the same noise), results in
# JSON, its output in DIR/hf.out and DIR/hf.err; exits 1, showing them, if a command fails. Sets
# LOAD_BEFORE and LOAD_AFTER (the load averages around it).
bench_hyperfine() {
  local json=$1 dir=$2 runs=$3 warmup=$4; shift 4
  local args=(-N --style none --runs "$runs" --warmup "$warmup" --export-json "$json") n=0
  while [ $# -ge 2 ]; do args+=(--command-name "$1" "$2"); shift 2; n=$((n + 1)); done
  echo "# hyperfine: $n commands x ($warmup warm-up + $runs runs)" >&2
  LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
  if ! JVERITY_NO_PROGRESS=1 hyperfine "${args[@]}" >"$dir/hf.out" 2>"$dir/hf.err"; then
    echo "!!! hyperfine failed (a command exited non-zero?):" >&2
    cat "$dir/hf.err" "$dir/hf.out" >&2
    exit 1
  fi
  LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
}

# bench_stats JSON: "name<TAB>min<TAB>median<TAB>mean user+system" per command, in order.
bench_stats() {
  if [ "$JSONTOOL" = jq ]; then
    jq -r '.results[] | [.command, .min, .median, .user + .system] | @tsv' "$1"
  else
    python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%s\t%s\t%s\t%s" % (r["command"], r["min"], r["median"], r["user"] + r["system"]))' "$1"
  fi
}

# bench_div A B: A / B to two places; "-" when B is 0.
bench_div() { awk -v a="$1" -v b="$2" 'BEGIN{if (b + 0 == 0) print "-"; else printf "%.2f", a / b}'; }

BENCH_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)  # where the probe is, whatever the cwd later

# bench_sha256_limits: this CPU's SHA-256 limits, from sha256-limit.sh (short: LIMIT_SECS=1,
# LIMIT_REPS=2), whatever hashing path the run under test has switched off (JVERITY_NATIVE,
# JVERITY_SHA256_X2 are not passed on). Sets LIMIT_ONE_1CORE LIMIT_ONE_ALL LIMIT_TWO_1CORE
# LIMIT_TWO_ALL (MB/s of block data) and LIMIT_JAVA_FLAGS (-D flags for the Java benches). Every
# "of the hash limit" ratio divides by the two-stream figure; on a CPU without the two-stream path
# that figure is the one-stream one, and this says so on stderr.
bench_sha256_limits() {
  local out
  out=$(env -u JVERITY_NATIVE -u JVERITY_SHA256_X2 SECS="${LIMIT_SECS:-1}" REPS="${LIMIT_REPS:-2}" \
    bash "$BENCH_LIB_DIR/sha256-limit.sh") || { echo "bench: the SHA-256 limit probe failed" >&2; return 1; }
  limit_of() { awk -v n="$1" '$1 == "LIMIT" && $2 == n {print $3}' <<< "$out"; }
  LIMIT_ONE_1CORE=$(limit_of sha256_one_stream_1core); LIMIT_ONE_ALL=$(limit_of sha256_one_stream_all)
  LIMIT_TWO_1CORE=$(limit_of sha256_two_stream_1core); LIMIT_TWO_ALL=$(limit_of sha256_two_stream_all)
  if [ "$LIMIT_TWO_ALL" = nan ]; then
    echo "# no two-stream SHA-256 on this CPU: the one-stream limit is the denominator" >&2
    LIMIT_TWO_1CORE=$LIMIT_ONE_1CORE LIMIT_TWO_ALL=$LIMIT_ONE_ALL
  fi
  echo "# SHA-256 limits (bench/sha256-limit.sh), MB/s: one stream $LIMIT_ONE_1CORE a core, $LIMIT_ONE_ALL all cores; two streams $LIMIT_TWO_1CORE a core, $LIMIT_TWO_ALL all cores"
  LIMIT_JAVA_FLAGS=(-Djverity.bench.limit.sha256_one_stream_1core="$LIMIT_ONE_1CORE"
    -Djverity.bench.limit.sha256_one_stream_all="$LIMIT_ONE_ALL"
    -Djverity.bench.limit.sha256_two_stream_1core="$LIMIT_TWO_1CORE"
    -Djverity.bench.limit.sha256_two_stream_all="$LIMIT_TWO_ALL")
}
