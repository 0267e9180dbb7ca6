#!/usr/bin/env bash
# in-process.sh — the SHA-256 hash limit of this machine (1 and all cores) against jverity's
# in-process tree build and check of the same image, in one JVM and one run. Prints a table, then
# the ratios of tree build and check to the all-core two-stream limit (bench/sha256-limit.sh's):
#   RATIO tree_build_<size>_of_hash_limit   RATIO tree_check_<size>_of_hash_limit
#
# Usage: bench/in-process.sh [SIZE]     SIZE default 1G; REPS=5 measured repetitions.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$ROOT/bin/lib.sh"
. "$ROOT/bench/lib.sh"
SIZE=$(numfmt --from=iec "${1:-1G}")
REPS=${REPS:-5}
JAVA_HOME=$(jverity_find_jdk); export JAVA_HOME
DIR=$(mktemp -d /dev/shm/jverity-inproc.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$DIR"' EXIT
jverity_bench_image "$DIR/data.img" "$SIZE"
echo "# $(date -u +%FT%TZ) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
bench_sha256_limits
jverity_bench_java "${LIMIT_JAVA_FLAGS[@]}" org.jverity.bench.InProcessBench "$DIR/data.img" "$REPS"
