#!/usr/bin/env bash
# remote.sh — jverity serving a veritysetup-made image (data + hash) from nginx, verifying every
# block, against `nbdkit curl` with its cache filter (not verifying) from the same nginx, in one
# run, at +0 ms and +20 ms per request (an nginx lua location: ngx.sleep before each response;
# these VMs' kernels have no netem), cold and warm cache. Then jverity serving the same image from
# the local file, for the warm-cache ratio. Measures, per system and delay:
#   - time to the first verified 4 KiB at a random offset, from the server's start and from the
#     NBD connect (remote-helpers.py ttfb: libnbd, connect retried every 2 ms), with the origin
#     requests made until then;
#   - sequential MiB/s with nbdcopy (--connections=4, then 1), cold, then warm (second pass);
#   - 4 KiB random read IOPS with fio's nbd engine at QD1 and QD32 (p50/p99 clat), cold, warm;
#   - origin requests and read amplification (origin bytes / client bytes), from nginx's access
#     log (log_format with $body_bytes_sent and $http_range), slice by slice;
#   - memory after the long sequential read: RSS, RssAnon, `jcmd GC.heap_info`, cache size.
# Each cold figure is from a server started over an empty cache (a wiped --cache-dir; nbdkit's
# cache filter keeps its cache in an unlinked temp file, so every start is cold). nbdkit 1.32's
# readahead filter is a no-op (serialized curl plugin, no NBD_CMD_CACHE): the run quotes nbdkit's
# own message. Prints a table, the TTFB request traces, memory, then the RATIO lines as the last:
#   RATIO remote_seq_20ms_over_nbdkit_curl         jverity / nbdkit, nbdcopy cold, 4 conns, +20 ms (target >= 10)
#   RATIO remote_rand4k_qd32_20ms_over_nbdkit_curl jverity / nbdkit, fio 4 KiB QD32 cold, +20 ms (target >= 10)
#   RATIO remote_warm_rand4k_over_local            jverity remote warm (+20 ms origin) / jverity on the
#                                                  local file, fio 4 KiB QD32 (target >= 0.8)
#   RATIO remote_ttfb_20ms_ms                      jverity cold, +20 ms: NBD connect -> first verified
#                                                  4 KiB, ms (target <= 3 round trips = 60 ms; the
#                                                  export is open once the handshake is done)
#   RATIO remote_rand4k_qd1_20ms_over_nbdkit_curl jverity / nbdkit, fio 4 KiB QD1 cold, +20 ms (target >= 1)
#   RATIO remote_ttfb_20ms_rtt                     the same first byte in round trips of +20 ms (target <= 1.3)
#
# Usage: bench/remote.sh     Env: SIZE=256M (the issue's fixture: SIZE=1G); RUNTIME=10 seconds per
#        fio run; DELAYS="0 20" ms per request; SEQ_CONNS="4 1" (the first is the ratio's);
#        PIN=0 no pinning (default: measured here, pinning jverity to one core cost it random IOPS
#        — 478/498 pinned against 658/901 not, cold QD32 at +20 ms, 128 MiB — and gained nothing
#        in sequential; it runs more threads than one core: HTTP client, JIT, GC, hashing), 1: nginx
#        on core 0, the server under test on core 1 (taskset; clients unpinned); CACHE_MAX bytes of each cache (default 2 x SIZE: everything fits);
#        SYSTEMS="qemu nbdkit jverity local" (qemu: qemu-img convert through its curl driver, the
#        sequential reference the issue names); JVERITY_JAVA_OPTS extra JVM flags of jverity;
#        JVERITY_REMOTE_OPEN replaces the remote server's command (`bin/jverity open URL ...`),
#        placeholders {DATA} {HASH} (URLs), {ROOT}, {PORT}, {CACHE} (dir), {CACHE_MAX}, {RUN};
#        KEEP=1 keeps the scratch dir (nginx's access log, the last server's stderr);
#        NBDKIT_FILTERS (default "--filter=readahead --filter=cache --filter=retry-request").
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/bin/lib.sh"
SIZE_ARG=${SIZE:-256M}
RUNTIME=${RUNTIME:-10}
DELAYS=${DELAYS:-"0 20"}
SEQ_CONNS=${SEQ_CONNS:-"4 1"}
PIN=${PIN:-0}
SYSTEMS=${SYSTEMS:-"qemu nbdkit jverity local"}
NBDKIT_FILTERS=${NBDKIT_FILTERS:-"--filter=readahead --filter=cache --filter=retry-request"}
JVERITY_REMOTE_CLI="$ROOT/bin/jverity open {DATA} bench {HASH} {ROOT} --port {PORT} --runtime-dir {RUN} --cache-dir {CACHE} --cache-max {CACHE_MAX}"
JVERITY_LOCAL_OPEN="$ROOT/bin/jverity open {DATA} bench {HASH} {ROOT} --port {PORT} --runtime-dir {RUN}"
PY=/usr/bin/python3   # Debian's, with python3-libnbd (a pyenv python on PATH has no nbd module)
HELP="$ROOT/bench/remote-helpers.py"
MODS=/usr/lib/nginx/modules

for t in nginx nbdkit nbdcopy nbdinfo fio veritysetup openssl ss numfmt taskset; do
  command -v "$t" >/dev/null || { echo "remote.sh: missing tool: $t" >&2; exit 2; }
done
[ -f "$MODS/ngx_http_lua_module.so" ] || { echo "remote.sh: missing nginx lua module (apt-get install libnginx-mod-http-lua)" >&2; exit 2; }
"$PY" -c 'import nbd' 2>/dev/null || { echo "remote.sh: $PY has no nbd module (apt-get install python3-libnbd)" >&2; exit 2; }
fio --enghelp 2>/dev/null | grep -qw nbd || { echo "remote.sh: fio has no nbd ioengine" >&2; exit 2; }
nbdkit curl --version >/dev/null 2>&1 || { echo "remote.sh: nbdkit has no curl plugin" >&2; exit 2; }
JAVA_HOME=$(jverity_find_jdk); export JAVA_HOME
SIZE=$(numfmt --from=iec "$SIZE_ARG")
CACHE_MAX=${CACHE_MAX:-$((2 * SIZE))}
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ]; then NGINX_CPU=(taskset -c 0); SERVER_CPU=(taskset -c 1); else NGINX_CPU=(); SERVER_CPU=(); PIN=0; fi
has() { case " $SYSTEMS " in *" $1 "*) return 0 ;; esac; return 1; }

# ---- scratch dir, image, nginx ------------------------------------------------------------------
T=$(mktemp -d /dev/shm/jverity-remote.XXXXXX 2>/dev/null || mktemp -d)
PIDS=()
NGINX_UP=0
kill_pid() {  # TERM, up to 5 s, then KILL: only processes this script started
  local p=$1
  [ -n "$p" ] || return 0
  kill "$p" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
}
cleanup() {
  local p
  for p in "${PIDS[@]:-}"; do kill_pid "$p"; done
  [ "$NGINX_UP" = 1 ] && nginx -p "$T/nginx" -c nginx.conf -e "$T/nginx/error.log" -s quit 2>/dev/null || true
  for _ in $(seq 50); do [ -f "$T/nginx/nginx.pid" ] || break; sleep 0.1; done
  if [ "${KEEP:-0}" = 1 ]; then echo "remote.sh: kept $T (nginx's access.log, servers' stderr)" >&2; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {  # below the kernel's ephemeral range, which other processes' connections take from
  local p lo
  read -r lo _ < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=32768
  for _ in $(seq 200); do
    p=$(( 20000 + RANDOM % (lo > 21000 ? lo - 20000 : 10000) ))
    ss -Htln "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
  done
  return 1
}

mkdir -p "$T/www" "$T/nginx/tmp" "$T/run"
chmod 755 "$T" "$T/www"   # nginx's workers run as nobody when it is started as root
jverity_bench_image "$T/www/data.img" "$SIZE"
RH=$(veritysetup format "$T/www/data.img" "$T/www/data.hash" | awk '/^Root hash:/{print $3}')
chmod 644 "$T/www/data.img" "$T/www/data.hash"
# The first byte's offset: 4 KiB-aligned, pseudo-random, the same for every system.
OFF=$(( (SIZE / 4096) * 7919 / 10007 * 4096 ))
EXPECT=$(dd if="$T/www/data.img" bs=4096 skip=$((OFF / 4096)) count=1 status=none | sha256sum | cut -d' ' -f1)

HPORT=$(free_port)
{
  echo "load_module $MODS/ndk_http_module.so;"
  echo "load_module $MODS/ngx_http_lua_module.so;"
  cat <<EOF
worker_processes 1;
pid nginx.pid;
error_log error.log warn;
events { worker_connections 1024; }
http {
  log_format rng '\$msec \$status \$body_bytes_sent \$request_time "\$http_range" \$request_method \$uri \$connection';
  access_log access.log rng;
  client_body_temp_path tmp; proxy_temp_path tmp; fastcgi_temp_path tmp; uwsgi_temp_path tmp; scgi_temp_path tmp;
  sendfile on; tcp_nopush on;
  keepalive_timeout 75s; keepalive_requests 1000000;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$HPORT;
    root $T/www;
EOF
  for d in $DELAYS; do
    if [ "$d" = 0 ]; then
      echo "    location /d0/ { alias $T/www/; }"
    else
      echo "    location /d$d/ { alias $T/www/; access_by_lua_block { ngx.sleep($(awk -v d="$d" 'BEGIN{printf "%.3f", d/1000}')) } }"
    fi
  done
  echo "  }"
  echo "}"
} > "$T/nginx/nginx.conf"
"${NGINX_CPU[@]}" nginx -p "$T/nginx" -c nginx.conf -e "$T/nginx/error.log" \
  || { echo "remote.sh: nginx did not start: $(tail -3 "$T/nginx/error.log" 2>/dev/null)" >&2; exit 1; }
NGINX_UP=1
ALOG=$T/nginx/access.log
for d in $DELAYS; do
  code=$(curl -s -o /dev/null -w '%{http_code}' -r 0-4095 "http://127.0.0.1:$HPORT/d$d/data.img" || true)
  [ "$code" = 206 ] || { echo "remote.sh: nginx /d$d/ answered a range request with $code: $(tail -3 "$T/nginx/error.log")" >&2; exit 1; }
done

# ---- jverity: built before any clock starts ------------------------------------------------------
JREMOTE=0
MODE=none
if has jverity || has local; then
  "$ROOT/bin/jverity" --version >/dev/null 2>&1 || { echo "remote.sh: bin/jverity does not run" >&2; exit 1; }
  # The remote server: `jverity open URL ...` (JVERITY_REMOTE_OPEN replaces it).
  MODE=cli
  JVERITY_REMOTE_OPEN=${JVERITY_REMOTE_OPEN:-$JVERITY_REMOTE_CLI}
  [ -n "${JVERITY_REMOTE_OPEN:-}" ] && has jverity && JREMOTE=1
fi

# ---- results ---------------------------------------------------------------------------------------
declare -A R=()
TABLE=$T/table.txt; : > "$TABLE"
NOTES=$T/notes.txt; : > "$NOTES"
row() {  # SYSTEM DELAY PHASE RESULT P50 P99 REQUESTS ORIGIN_BYTES CLIENT_BYTES CONNECTIONS PEAK MEAN (in flight)
  local amp="-" mib="-" dl="+$2ms"
  [ "$2" = - ] && dl=-
  if [ -n "${8:-}" ] && [ "${8:-}" != - ]; then
    mib=$(awk -v b="$8" 'BEGIN{printf "%.1f", b/1048576}')
    [ -n "${9:-}" ] && [ "$9" != 0 ] && amp=$(awk -v o="$8" -v c="$9" 'BEGIN{printf "%.2f", o/c}')
  fi
  printf '%-8s %5s  %-22s %-24s %8s %8s %9s %10s %6s %5s %5s %5s\n' "$1" "$dl" "$3" "$4" "${5:--}" "${6:--}" "${7:--}" "$mib" "$amp" "${10:--}" "${11:--}" "${12:--}" | tee -a "$TABLE" >&2
}
note_once() { grep -qxF -- "$1" "$NOTES" || echo "$1" >> "$NOTES"; }
logpos() { stat -c %s "$ALOG"; }
settle() { sleep 0.3; }  # lets requests in flight (read-ahead) reach the log of their phase

# ---- servers ---------------------------------------------------------------------------------------
SPID=""; SURI=""; SLABEL=""
# start SYSTEM DELAY: starts it on a free port with the TTFB client waiting; sets SPID SURI and
# R[ttfb_*] of this start (start->connect, connect->byte, start->byte, requests before the byte).
start_server() {
  local try
  for try in 1 2 3; do
    start_once "$@" && return 0
    # Another process took the port between free_port and the server's bind: a new port.
    grep -qi 'address already in use' "$T/server.err" 2>/dev/null || return 1
    echo "remote.sh: [$1] port taken, starting again on another" >&2
  done
  return 1
}
start_once() {
  local sys=$1 d=$2 port go out t0 cmd tmpl pos0 pos1 ttfb
  port=$(free_port)
  go=$T/go.$RANDOM; out=$T/ttfb.out
  case $sys in
    nbdkit) SURI="nbd://127.0.0.1:$port/" ;;
    *) SURI="nbd://127.0.0.1:$port/bench" ;;
  esac
  rm -f "$go" "$out"
  "$PY" "$HELP" ttfb "$SURI" "$OFF" "$go" "$EXPECT" 120 >"$out" 2>"$T/ttfb.err" &
  local tpid=$!
  for _ in $(seq 1000); do grep -q '^ready' "$out" 2>/dev/null && break; kill -0 "$tpid" 2>/dev/null || break; sleep 0.01; done
  pos0=$(logpos)
  t0=$(date +%s.%N)
  case $sys in
    nbdkit)
      # shellcheck disable=SC2086
      TMPDIR=$T/nbdkit-cache "${SERVER_CPU[@]}" nbdkit -f -r --exit-with-parent -i 127.0.0.1 -p "$port" $NBDKIT_FILTERS \
        curl "url=http://127.0.0.1:$HPORT/d$d/data.img" timeout=30 protocols=http,https \
        cache-on-read=true "cache-max-size=$CACHE_MAX" cache-min-block-size=256K retry-request-retries=3 \
        >"$T/server.out" 2>"$T/server.err" &
      ;;
    jverity|local)
      if [ "$sys" = jverity ]; then
        tmpl=$JVERITY_REMOTE_OPEN
        cmd=${tmpl//\{DATA\}/http://127.0.0.1:$HPORT/d$d/data.img}; cmd=${cmd//\{HASH\}/http://127.0.0.1:$HPORT/d$d/data.hash}
      else
        tmpl=$JVERITY_LOCAL_OPEN
        cmd=${tmpl//\{DATA\}/$T/www/data.img}; cmd=${cmd//\{HASH\}/$T/www/data.hash}
      fi
      cmd=${cmd//\{ROOT\}/$RH}; cmd=${cmd//\{PORT\}/$port}; cmd=${cmd//\{CACHE\}/$T/jcache}
      cmd=${cmd//\{CACHE_MAX\}/$CACHE_MAX}; cmd=${cmd//\{RUN\}/$T/run}
      echo "$cmd" > "$T/server.cmd"
      # shellcheck disable=SC2086
      "${SERVER_CPU[@]}" $cmd >"$T/server.out" 2>"$T/server.err" &
      ;;
  esac
  SPID=$!; PIDS+=("$SPID"); SLABEL=$sys
  echo "$t0" > "$go.tmp" && mv "$go.tmp" "$go"
  # Until the first byte is read, or the server has exited (then no byte will come).
  local first=""
  wait -n -p first "$tpid" "$SPID" 2>/dev/null || true
  [ "$first" = "$SPID" ] && kill "$tpid" 2>/dev/null
  wait "$tpid" 2>/dev/null || true
  ttfb=$(grep -v '^ready' "$out" || true)
  settle
  pos1=$(logpos)
  if [ -z "$ttfb" ]; then
    echo "remote.sh: [$sys +${d}ms] no first byte: $(tail -2 "$T/ttfb.err" 2>/dev/null | tr '\n' ' ') server: $(tail -3 "$T/server.err" | tr '\n' ' ')" >&2
    stop_server; return 1
  fi
  read -r R[ttfb_conn] R[ttfb_byte] R[ttfb_total] _ R[ttfb_ok] <<< "$ttfb"
  R[ttfb_trace]=$("$PY" "$HELP" origin "$ALOG" "$pos0" "$pos1" "$t0")
  read -r R[ttfb_req] R[ttfb_bytes] R[ttfb_conns] R[ttfb_peak] R[ttfb_mean] <<< "$(head -1 <<< "${R[ttfb_trace]}")"
  [ "${R[ttfb_ok]}" = OK ] || echo "remote.sh: [$sys +${d}ms] the first 4 KiB at $OFF is WRONG" >&2
}
stop_server() {
  [ -n "$SPID" ] && kill_pid "$SPID"
  SPID=""
  local line
  line=$(grep -m1 '^remote stats:' "$T/server.err" 2>/dev/null || true)
  [ -n "$line" ] && echo "[$SLABEL ${SESSION:-}] jverity's own count, $line" >> "$NOTES"
  return 0
}

# ---- phases -----------------------------------------------------------------------------------------
# seq SYSTEM DELAY CONNS LABEL: one nbdcopy of the export to null:, timed; sets R[seq_mibs].
seq_phase() {
  local sys=$1 d=$2 c=$3 label=$4 p0 p1 t0 t1 req bytes conns peak mean
  p0=$(logpos); t0=$(date +%s.%N)
  if ! nbdcopy --no-extents --connections="$c" --requests=64 --request-size=262144 "$SURI" null: 2>"$T/nbdcopy.err"; then
    echo "remote.sh: [$sys +${d}ms] nbdcopy failed: $(tail -2 "$T/nbdcopy.err" | tr '\n' ' ')" >&2
    row "$sys" "$d" "$label" "FAILED"; R[seq_mibs]=""; return 0
  fi
  t1=$(date +%s.%N); settle; p1=$(logpos)
  read -r req bytes conns peak mean <<< "$("$PY" "$HELP" origin "$ALOG" "$p0" "$p1" | head -1)"
  R[seq_mibs]=$(awk -v s="$SIZE" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", s/1048576/(b-a)}')
  row "$sys" "$d" "$label" "${R[seq_mibs]} MiB/s ($(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s)" - - "$req" "$bytes" "$SIZE" "$conns" "$peak" "$mean"
}
# rand SYSTEM DELAY QD LABEL: fio nbd 4 KiB randread for RUNTIME s; sets R[rand_iops].
rand_phase() {
  local sys=$1 d=$2 qd=$3 label=$4 p0 p1 req bytes conns peak mean iops p50 p99 io json=$T/fio.json
  p0=$(logpos)
  if ! timeout $((RUNTIME + 120)) fio --name=r --ioengine=nbd --uri="$SURI" --readonly --rw=randread --bs=4k \
      --iodepth="$qd" --time_based --runtime="$RUNTIME" --norandommap --randrepeat=0 \
      --output-format=json --output="$json" >"$T/fio.err" 2>&1 \
      || ! read -r iops p50 p99 io <<< "$("$PY" "$HELP" fio "$json" 2>>"$T/fio.err")"; then
    echo "remote.sh: [$sys +${d}ms] fio QD$qd failed: $(grep -v '^fio: connected' "$T/fio.err" | tail -2 | tr '\n' ' ')" >&2
    row "$sys" "$d" "$label" "FAILED"; R[rand_iops]=""; return 0
  fi
  settle; p1=$(logpos)
  read -r req bytes conns peak mean <<< "$("$PY" "$HELP" origin "$ALOG" "$p0" "$p1" | head -1)"
  R[rand_iops]=$iops
  row "$sys" "$d" "$label" "$(printf '%.0f' "$iops") IOPS" "$p50" "$p99" "$req" "$bytes" "$io" "$conns" "$peak" "$mean"
}
# qemu SYSTEM DELAY: qemu-img convert through qemu's curl driver (readahead=1M) to a null target:
# the sequential reference of the issue (no NBD, no verification, no cache).
qemu_phase() {
  local d=$1 p0 p1 t0 t1 req bytes conns peak mean mibs try rc hung=0 limit=$((10 + SIZE / 1048576 / 16))
  # qemu 7.2's curl driver hangs now and then at the end of a convert (seen here at +0 and +20 ms,
  # about one run in three): each attempt has a time limit, and a hung one is counted and retried.
  for try in 1 2; do
    p0=$(logpos); t0=$(date +%s.%N)
    rc=0
    timeout "$limit" "${SERVER_CPU[@]}" qemu-img convert -n -f raw -O raw \
        "json:{\"file.driver\":\"http\",\"file.url\":\"http://127.0.0.1:$HPORT/d$d/data.img\",\"file.readahead\":\"1M\"}" \
        "json:{\"driver\":\"raw\",\"file\":{\"driver\":\"null-co\",\"size\":$SIZE}}" 2>"$T/qemu.err" || rc=$?
    if [ "$rc" = 0 ]; then
      t1=$(date +%s.%N); settle; p1=$(logpos)
      read -r req bytes conns peak mean <<< "$("$PY" "$HELP" origin "$ALOG" "$p0" "$p1" | head -1)"
      mibs=$(awk -v s="$SIZE" -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", s/1048576/(b-a)}')
      row qemu-img "$d" "seq (curl driver)" "$mibs MiB/s ($(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s)" - - "$req" "$bytes" "$SIZE" "$conns" "$peak" "$mean"
      [ "$hung" = 0 ] || note_once "qemu-img convert (curl driver) at +${d} ms: $hung attempt(s) hung past ${limit} s before one finished"
      return 0
    fi
    [ "$rc" = 124 ] || break
    hung=$((hung + 1)); settle
  done
  echo "remote.sh: [qemu +${d}ms] qemu-img convert failed or hung ($hung hung): $(tail -2 "$T/qemu.err" | tr '\n' ' ')" >&2
  row qemu-img "$d" "seq (curl driver)" "FAILED ($hung hung)"
}
ttfb_row() {  # SYSTEM DELAY LABEL
  row "$1" "$2" "$3" "start ${R[ttfb_total]} / conn ${R[ttfb_byte]} ms" - - "${R[ttfb_req]}" "${R[ttfb_bytes]}" 4096 "${R[ttfb_conns]}" "${R[ttfb_peak]}" "${R[ttfb_mean]}"
  {
    local rtt=""
    case $2 in -|0) ;; *) rtt=" = $(awk -v a="${R[ttfb_byte]}" -v d="$2" 'BEGIN{printf "%.1f", a/d}') round trips of $2 ms" ;; esac
    echo "[$1 $([ "$2" = - ] || echo "+${2}ms ")$3] start -> connect ${R[ttfb_conn]} ms, connect -> first verified 4 KiB ${R[ttfb_byte]} ms$rtt (${R[ttfb_ok]}); origin requests until then (ms since start):"
    tail -n +2 <<< "${R[ttfb_trace]}"
    # Those made before the connect are the server's own start (jverity open's sample of the image
    # before it listens); after it, the first read's.
    tail -n +2 <<< "${R[ttfb_trace]}" | awk -v c="${R[ttfb_conn]}" '{x = $0; sub(/^ *\+ */, "", x); split(x, f, " "); if (f[1] + 0 > c) {n++; b += f[6]} else {m++; a += f[6]}}
      END {printf "  = %d requests (%d B) before the connect, %d (%d B) after it\n", m, a, n, b}'
  } >> "$NOTES"
}
memory() {  # SYSTEM DELAY: the server's memory and cache after the long sequential reads
  local pid=$SPID rss anon heap cache
  rss=$(awk '/^VmRSS:/{printf "%.1f", $2/1024}' "/proc/$pid/status")
  anon=$(awk '/^RssAnon:/{printf "%.1f", $2/1024}' "/proc/$pid/status")
  if [ "$1" = nbdkit ]; then
    # The cache filter's file is unlinked in TMPDIR: its allocated blocks, through the open fd.
    cache=$(for f in /proc/"$pid"/fd/*; do case $(readlink "$f") in "$T/nbdkit-cache"*) stat -L -c '%b %B' "$f" ;; esac; done \
      | awk '{s += $1 * $2} END{printf "%.1f MiB (unlinked temp file, allocated)", s/1048576}')
    heap="-"
  else
    [ "$1" = local ] && cache="none (the local file)" || cache=$(du -sb "$T/jcache" 2>/dev/null | awk -v n="$(find "$T/jcache" -type f 2>/dev/null | wc -l)" '{printf "%.1f MiB in %d files", $1/1048576, n}')
    # jcmd only for a JVM: to anything else its attach is a SIGQUIT, which ends it.
    case $(readlink "/proc/$pid/exe") in
      */java)
        heap=$("$JAVA_HOME/bin/jcmd" "$pid" GC.heap_info 2>/dev/null \
          | awk '/^[A-Za-z].* total [0-9]+K, used [0-9]+K/ {gsub(/,/, ""); printf "%s%s used %s of %s", sep, $1, $5, $3; sep = "; "}' || true)
        heap="$heap; max $("$JAVA_HOME/bin/jcmd" "$pid" VM.flags 2>/dev/null | grep -o 'MaxHeapSize=[0-9]*' | head -1 | awk -F= '{printf "%.0fM", $2/1048576}')" ;;
      *) heap="- (not a JVM)" ;;
    esac
  fi
  echo "memory [$1$([ "$2" = - ] || echo " +${2}ms")] after nbdcopy x2 of $SIZE_ARG: VmRSS $rss MiB, RssAnon $anon MiB; heap: ${heap:--}; cache: $cache" >> "$NOTES"
}

# ---- the run ------------------------------------------------------------------------------------------
{
  echo "# bench/remote.sh $(date -u +%FT%TZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# image $SIZE_ARG ($SIZE B, veritysetup sha256 4096/4096, root $RH) in $T; nginx $(nginx -v 2>&1 | sed 's/.*\///') on 127.0.0.1:$HPORT, delays: $DELAYS ms (lua ngx.sleep before each response)"
  echo "# $(nbdkit --version) $NBDKIT_FILTERS curl ... cache-on-read=true cache-max-size=$CACHE_MAX cache-min-block-size=256K retry-request-retries=3 (TMPDIR=$T/nbdkit-cache)"
  echo "# jverity $("$ROOT/bin/jverity" --version 2>/dev/null | head -1) ($(git -C "$ROOT" log -1 --format=%h 2>/dev/null)), remote server ($MODE): $([ "$JREMOTE" = 1 ] && echo "$JVERITY_REMOTE_OPEN" || echo 'not available')"
  echo "# pinning: $([ "$PIN" = 1 ] && echo 'nginx taskset -c 0, server under test taskset -c 1, clients unpinned' || echo none); fio ${RUNTIME} s per run; nbdcopy --no-extents --requests=64 --request-size=262144"
} > "$T/head.txt"
cat "$T/head.txt" >&2
mkdir -p "$T/nbdkit-cache"
HDR=$(printf '%-8s %5s  %-22s %-24s %8s %8s %9s %10s %6s %5s %5s %5s' system delay phase result p50ms p99ms origin-req origin-MiB amplif conns peak mean)
echo "$HDR" >&2
for d in $DELAYS; do
  if has qemu; then qemu_phase "$d"; fi
  for sys in nbdkit jverity; do
    has "$sys" || continue
    if [ "$sys" = jverity ] && [ "$JREMOTE" = 0 ]; then row jverity "$d" "all" "n/a: no remote support"; continue; fi
    # 1. cold start: first byte; sequential cold then warm; random warm; memory.
    rm -rf "$T/jcache" "$T/nbdkit-cache"; mkdir -p "$T/jcache" "$T/nbdkit-cache"
    SESSION="+${d}ms cold start, seq x2, rand warm"
    start_server "$sys" "$d" || { row "$sys" "$d" "start" "FAILED"; continue; }
    if [ "$sys" = nbdkit ]; then
      msg=$(grep -m1 -o 'readahead: warning:.*' "$T/server.err" || true)
      [ -n "$msg" ] && note_once "nbdkit $(nbdkit --version | cut -d' ' -f2) on its readahead filter (so it does nothing here): \"$msg\""
    fi
    note_once "multi-conn [$sys]: $(nbdinfo --can multi-conn "$SURI" >/dev/null 2>&1 && echo advertised || echo 'not advertised (nbdcopy then uses 1 connection)')"
    ttfb_row "$sys" "$d" "first byte, cold"
    R[$sys.$d.ttfb_byte]=${R[ttfb_byte]}
    c1=${SEQ_CONNS%% *}
    seq_phase "$sys" "$d" "$c1" "seq c=$c1 cold"; R[$sys.$d.seq_cold]=${R[seq_mibs]}
    seq_phase "$sys" "$d" "$c1" "seq c=$c1 warm"; R[$sys.$d.seq_warm]=${R[seq_mibs]}
    memory "$sys" "$d"
    rand_phase "$sys" "$d" 1 "rand QD1 warm"
    rand_phase "$sys" "$d" 32 "rand QD32 warm"; R[$sys.$d.qd32_warm]=${R[rand_iops]}
    if [ "$sys" = jverity ] && [ -s "$T/server.err" ]; then
      { echo "jverity's stderr [+${d}ms], last lines:"; tail -5 "$T/server.err" | sed 's/^/  /'; } >> "$NOTES"
    fi
    stop_server
    if [ "$sys" = jverity ]; then  # a restart over the same cache directory
      SESSION="+${d}ms restart over the cache, seq"
      if start_server "$sys" "$d"; then
        ttfb_row "$sys" "$d" "first byte, restart"
        seq_phase "$sys" "$d" "$c1" "seq c=$c1 restart"
        stop_server
      fi
    fi
    # 2. cold random, QD1 and QD32 each from an empty cache.
    for qd in 1 32; do
      rm -rf "$T/jcache" "$T/nbdkit-cache"; mkdir -p "$T/jcache" "$T/nbdkit-cache"
      SESSION="+${d}ms cold, rand QD$qd"
      start_server "$sys" "$d" || continue
      rand_phase "$sys" "$d" "$qd" "rand QD$qd cold"; R[$sys.$d.qd${qd}_cold]=${R[rand_iops]}
      stop_server
    done
    # 3. cold sequential with the other connection counts.
    for c in ${SEQ_CONNS#* }; do
      [ "$c" = "$c1" ] && continue
      rm -rf "$T/jcache" "$T/nbdkit-cache"; mkdir -p "$T/jcache" "$T/nbdkit-cache"
      SESSION="+${d}ms cold, seq c=$c"
      start_server "$sys" "$d" || continue
      seq_phase "$sys" "$d" "$c" "seq c=$c cold"
      stop_server
    done
  done
done
if has local; then  # jverity on the local file: the page cache's copy, no origin
  if start_server local -; then
    ttfb_row local - "first byte"
    seq_phase local - "${SEQ_CONNS%% *}" "seq c=${SEQ_CONNS%% *} (1st)"
    seq_phase local - "${SEQ_CONNS%% *}" "seq c=${SEQ_CONNS%% *} (2nd)"
    memory local -
    rand_phase local - 1 "rand QD1"
    rand_phase local - 32 "rand QD32"; R[local.qd32]=${R[rand_iops]}
    stop_server
  fi
fi

ratio() { awk -v a="${1:-}" -v b="${2:-}" 'BEGIN{ if (a == "" || b == "" || b == 0) print "nan"; else printf "%.2f", a / b }'; }
SLOW=$(for d in $DELAYS; do echo "$d"; done | sort -n | tail -1)   # the ratios' delay: the largest (20)
echo
cat "$T/head.txt"
echo "$HDR"
cat "$TABLE"
echo "(result of 'first byte': start = server process start -> first verified 4 KiB returned; conn = NBD handshake done -> it returned."
echo " cold = the server started over an empty cache; warm = the same server's second pass; restart = a new process over the cache"
echo " directory the cold run filled. p50/p99 = fio clat, ms. amplif = origin bytes (nginx \$body_bytes_sent) / bytes the client read;"
echo " first byte rows count from the server's start: amplif there = all origin bytes until then / 4096 (the notes split them at the connect);"
echo " conns = distinct origin connections (\$connection); peak, mean = origin requests in flight at once, most and on average over the phase's requests (nginx \$request_time).)"
echo
cat "$NOTES"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (other work on these $(nproc) cores makes every figure noisier)"
echo
echo "targets: at +${SLOW} ms seq >= 10x nbdkit curl and > qemu curl (~180 MB/s); rand QD32 >= 10x nbdkit curl; warm >= 0.8 of local; first byte <= 3 round trips after connect"
echo "RATIO remote_seq_20ms_over_nbdkit_curl $(ratio "${R[jverity.$SLOW.seq_cold]:-}" "${R[nbdkit.$SLOW.seq_cold]:-}")"
echo "RATIO remote_rand4k_qd32_20ms_over_nbdkit_curl $(ratio "${R[jverity.$SLOW.qd32_cold]:-}" "${R[nbdkit.$SLOW.qd32_cold]:-}")"
echo "RATIO remote_warm_rand4k_over_local $(ratio "${R[jverity.$SLOW.qd32_warm]:-}" "${R[local.qd32]:-}")"
echo "RATIO remote_ttfb_20ms_ms ${R[jverity.$SLOW.ttfb_byte]:-nan}"
echo "RATIO remote_rand4k_qd1_20ms_over_nbdkit_curl $(ratio "${R[jverity.$SLOW.qd1_cold]:-}" "${R[nbdkit.$SLOW.qd1_cold]:-}")"
echo "RATIO remote_ttfb_20ms_rtt $(ratio "${R[jverity.$SLOW.ttfb_byte]:-}" "$SLOW")"
