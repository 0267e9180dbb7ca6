#!/usr/bin/env bash
# read.sh — the verified read path against unverified reads and the SHA-256 limit, in one JVM and
# one run: 4 KiB random reads with 1 and 8 threads, 128 KiB and 512 KiB reads, each unverified,
# verified inline-first and verified worker-only, on an image in the page cache with a hot
# hash-block cache. Ends in a table (IOPS, MB/s, p50/p99 latency) and the ratios.
#
# Usage: bench/read.sh [SIZE]     SIZE default 1G; SECONDS=3 per case.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/bin/lib.sh"
SIZE=$(numfmt --from=iec "${1:-1G}")
SECONDS_PER_CASE=${SECONDS:-3}
JAVA_HOME=$(jverity_find_jdk); export JAVA_HOME
jverity_mvn -q -DskipTests package >/dev/null
DIR=$(mktemp -d /dev/shm/jverity-read.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$DIR"' EXIT
openssl enc -aes-128-ctr -K 00000000000000000000000000000000 -iv 00000000000000000000000000000000 \
  -in /dev/zero 2>/dev/null | head -c "$SIZE" > "$DIR/data.img" || true
echo "# $(date -u +%FT%TZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), image $SIZE bytes in $DIR"
"$JAVA_HOME/bin/java" -cp "$ROOT/jverity-core/target/classes:$ROOT/jverity-bench/target/classes" \
  org.jverity.bench.ReadBench "$DIR/data.img" "$SECONDS_PER_CASE"
