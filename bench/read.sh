#!/usr/bin/env bash
# read.sh — the verified read path against unverified reads and the SHA-256 limit, in one JVM and
# one run: 4 KiB random reads with 1 and 8 threads, 128 KiB and 512 KiB reads, each unverified,
# verified inline-first and verified worker-only, on an image in the page cache with a hot
# hash-block cache, plus 10,000 virtual-thread 4 KiB readers with the peak heap after GC. Devices
# are opened mapped (BlockDevices.openRead). Before them, `jverity read IMG HASH -o OUT` of 2 GiB
# against `cp IMG OUT` into the same tmpfs directory (best of 3, interleaved, outputs compared).
# Ends in a table (IOPS, MB/s, p50/p99 latency), then the six RATIO lines as the last lines
# (read_out_2g_over_cp is cp's time over read -o's); "of the hash limit" is of the all-core two-stream limit
# (bench/sha256-limit.sh), "of one stream" of the limit one block at a time (what a 4 KiB read can reach).
#
# Usage: bench/read.sh [SIZE]     SIZE default 1G; CASE_SECONDS=3 per case; READ_OUT_SIZE=2G;
#        READ_BENCH_JVM_FLAGS replaces the JVM flags below (the run prints the ones it used).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/bin/lib.sh"
. "$ROOT/bench/lib.sh"
SIZE=$(numfmt --from=iec "${1:-1G}")
SECONDS_PER_CASE=${CASE_SECONDS:-3}   # not SECONDS: bash keeps its own clock there
JAVA_HOME=$(jverity_find_jdk); export JAVA_HOME
DIR=$(mktemp -d /dev/shm/jverity-read.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$DIR"' EXIT
jverity_bench_image "$DIR/data.img" "$SIZE"
echo "# $(date -u +%FT%TZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), image $SIZE bytes in $DIR"
# A fixed heap, so the heap figures of the virtual-thread case are comparable between runs; native
# access for FileDevice's FFM pread/pwrite (the hash tree is written with it).
read -r -a JVM_FLAGS <<< "${READ_BENCH_JVM_FLAGS:--Xms1g -Xmx1g -XX:+UseG1GC}"
# ---- read -o against cp: READ_OUT_SIZE (2G) into the same tmpfs directory, best of 3 -------------
# Each command writes a fresh file, interleaved, READ_OUT_SETTLE (3) seconds after the last output
# was removed. Why the pause: this VM hands freed pages back to the host within a fraction of a
# second (virtio_balloon free page reporting, order 5), and a page the host took back costs about
# 0.5 s per GiB to touch again: cp of 2 GiB took 0.86-0.93 s right after an rm and 1.56-2.63 s 0.3
# to 2 s after it. A JVM starts writing ~0.2 s after its launch, cp at once, so without the pause cp
# alone would write into pages still in the guest. After it, both write into pages taken back.
OUT_SIZE=$(numfmt --from=iec "${READ_OUT_SIZE:-2G}")
jverity_bench_image "$DIR/out-src.img" "$OUT_SIZE"
"$ROOT/bin/jverity" format "$DIR/out-src.img" "$DIR/out-src.hash" --root-hash-file "$DIR/out-src.root" > /dev/null
ms() { local s e; s=$(date +%s%N); "$@"; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
best_cp="" best_read=""
cp "$DIR/out-src.img" "$DIR/out.img"
SETTLE=${READ_OUT_SETTLE:-3}
for _ in 1 2 3; do
  rm -f "$DIR/out.img"; sleep "$SETTLE"; t=$(ms cp "$DIR/out-src.img" "$DIR/out.img")
  [ -z "$best_cp" ] || [ "$t" -lt "$best_cp" ] && best_cp=$t
  rm -f "$DIR/out.img"; sleep "$SETTLE"
  t=$(ms env JVERITY_NO_PROGRESS=1 "$ROOT/bin/jverity" read "$DIR/out-src.img" "$DIR/out-src.hash" \
    --root-hash-file "$DIR/out-src.root" -o "$DIR/out.img")
  [ -z "$best_read" ] || [ "$t" -lt "$best_read" ] && best_read=$t
  cmp -s "$DIR/out-src.img" "$DIR/out.img" || { echo "read.sh: read -o wrote other bytes than the image" >&2; exit 1; }
done
rm -f "$DIR/out.img" "$DIR/out-src.img"
echo "read -o of $OUT_SIZE bytes into tmpfs: best $best_read ms; cp of the same file: best $best_cp ms (3 each, interleaved, $SETTLE s after an rm)"
bench_sha256_limits
jverity_bench_java "${JVM_FLAGS[@]}" "${LIMIT_JAVA_FLAGS[@]}" org.jverity.bench.ReadBench "$DIR/data.img" "$SECONDS_PER_CASE"
echo "RATIO read_out_$(echo "${READ_OUT_SIZE:-2G}" | tr 'A-Z' 'a-z')_over_cp $(awk -v c="$best_cp" -v r="$best_read" 'BEGIN{printf "%.2f", c / r}')"
