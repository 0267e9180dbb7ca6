#!/usr/bin/env bash
# read.sh — the verified read path against unverified reads and the SHA-256 limit, in one JVM and
# one run: 4 KiB random reads with 1 and 8 threads, 128 KiB and 512 KiB reads, each unverified,
# verified inline-first and verified worker-only, on an image in the page cache with a hot
# hash-block cache. Ends in a table (IOPS, MB/s, p50/p99 latency) and the ratios.
#
# Usage: bench/read.sh [SIZE]     SIZE default 1G; CASE_SECONDS=3 per case.
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
jverity_bench_java org.jverity.bench.ReadBench "$DIR/data.img" "$SECONDS_PER_CASE"
