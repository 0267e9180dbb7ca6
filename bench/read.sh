#!/usr/bin/env bash
# read.sh — the verified read path against unverified reads and the SHA-256 limit, in one JVM and
# one run: 4 KiB random reads with 1 and 8 threads, 128 KiB and 512 KiB reads, each unverified,
# verified inline-first and verified worker-only, on an image in the page cache with a hot
# hash-block cache, plus 10,000 virtual-thread 4 KiB readers with the peak heap after GC. Devices
# are opened mapped (BlockDevices.openRead). Ends in a table (IOPS, MB/s, p50/p99 latency), then
# the four RATIO lines as the last lines.
#
# Usage: bench/read.sh [SIZE]     SIZE default 1G; CASE_SECONDS=3 per case;
#        READ_BENCH_JVM_FLAGS replaces the JVM flags below (the run prints the ones it used).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/bin/lib.sh"
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
jverity_bench_java "${JVM_FLAGS[@]}" org.jverity.bench.ReadBench "$DIR/data.img" "$SECONDS_PER_CASE"
