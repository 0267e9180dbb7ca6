#!/usr/bin/env bash
# digest.sh — wall time of `jverity digest` against `fsverity digest` (fsverity-utils), whole
# processes (JVM start included), on the same files in /dev/shm (or /tmp when it has no room):
#   1. one file of SIZE bytes (default 1G) of AES-128-CTR keystream (bin/lib.sh jverity_bench_image);
#   2. 1,000 files of 4-64 KiB (deterministic sizes and bytes), all in one process per tool;
#   3. a tree of FILES files (default 100,000) of 1-16 KiB (deterministic sizes and bytes), 1,000 to a
#      directory (the composefs / container-image case): `jverity digest --recursive TREE` against
#      `find TREE -type f | LC_ALL=C sort | xargs fsverity digest`, the same files in the same order.
# Outputs are compared first (untimed); a difference fails the run. hyperfine, RUNS measured runs
# after WARMUP, medians. The last three lines are the ratios fsverity time / jverity time.
# Usage: bench/digest.sh [SIZE]    Env: RUNS=5 WARMUP=1 FILES=100000
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=$REPO
# shellcheck source=bin/lib.sh
. "$REPO/bin/lib.sh"
JV="$REPO/bin/jverity"
SIZE=$(numfmt --from=iec "${1:-1G}")
RUNS=${RUNS:-5}
WARMUP=${WARMUP:-1}
FILES=${FILES:-100000}
die() { echo "digest: $*" >&2; exit 2; }
for t in fsverity hyperfine python3 cmp; do command -v "$t" >/dev/null || die "missing tool: $t (Debian: apt-get install fsverity hyperfine)"; done

echo "# building jverity (untimed)" >&2
"$JV" --version >/dev/null || die "bin/jverity --version failed"

BASE=/dev/shm
# The tree: FILES files of 8.5 KiB on average, plus their blocks' slack.
[ "$(df -k --output=avail "$BASE" | tail -1)" -gt $(( SIZE / 1024 + 200000 + FILES * 12 )) ] || BASE=/tmp
DIR=$(mktemp -d "$BASE/jverity-digest.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
trap 'exit 130' INT TERM

jverity_bench_image "$DIR/big" "$SIZE"
mkdir "$DIR/small"
python3 - "$DIR/small" <<'PY'
import os, random, sys
r = random.Random(1000)
for i in range(1, 1001):
    with open(os.path.join(sys.argv[1], "f%04d" % i), "wb") as f:
        f.write(r.randbytes(r.randint(4, 64) * 1024))
PY
python3 - "$DIR/tree" "$FILES" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
r = random.Random(100000)
for i in range(n):
    d = os.path.join(root, "d%03d" % (i // 1000))
    if i % 1000 == 0:
        os.makedirs(d)
    with open(os.path.join(d, "f%04d" % (i % 1000)), "wb") as f:
        f.write(r.randbytes(r.randint(1024, 16384)))
PY
cd "$DIR/small"
SMALL=$(ls | sort | tr '\n' ' ')
# fsverity-utils has no --recursive: find lists the tree, sorted as jverity sorts (bytes), and
# xargs hands it over in as few processes as the argument limit allows.
FSV_TREE="find $DIR/tree -type f | LC_ALL=C sort | xargs fsverity digest"

# Same output from both (untimed).
cmp <("$JV" digest "$DIR/big") <(fsverity digest "$DIR/big") || die "digests of the big file differ"
# shellcheck disable=SC2086
cmp <("$JV" digest $SMALL) <(fsverity digest $SMALL) || die "digests of the small files differ"
cmp <("$JV" digest --recursive "$DIR/tree") <(bash -c "$FSV_TREE") || die "digests of the tree differ"

median() { # hyperfine JSON -> median seconds of command $2
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["median"])' "$1" "$2"
}
hyperfine -N --runs "$RUNS" --warmup "$WARMUP" --export-json "$DIR/big.json" \
  -n "cat (read floor)" "cat $DIR/big" \
  -n "fsverity digest 1 file" "fsverity digest $DIR/big" \
  -n "jverity digest 1 file" "$JV digest $DIR/big" \
  -n "jverity --version (JVM start)" "$JV --version" >&2
hyperfine -N --runs "$RUNS" --warmup "$WARMUP" --export-json "$DIR/small.json" \
  -n "fsverity digest 1000 files" "fsverity digest $SMALL" \
  -n "jverity digest 1000 files" "$JV digest $SMALL" >&2
hyperfine -N --runs "$RUNS" --warmup "$WARMUP" --export-json "$DIR/tree.json" \
  -n "find | sort | xargs fsverity digest, $FILES files" "bash -c '$FSV_TREE'" \
  -n "jverity digest --recursive, $FILES files" "$JV digest --recursive $DIR/tree" >&2

F1=$(median "$DIR/big.json" 1); J1=$(median "$DIR/big.json" 2); START=$(median "$DIR/big.json" 3)
F2=$(median "$DIR/small.json" 0); J2=$(median "$DIR/small.json" 1)
F3=$(median "$DIR/tree.json" 0); J3=$(median "$DIR/tree.json" 1)
awk -v s="$SIZE" -v f="$F1" -v j="$J1" -v st="$START" -v f2="$F2" -v j2="$J2" \
  -v n="$FILES" -v f3="$F3" -v j3="$J3" 'BEGIN {
  printf "big file: %d bytes; fsverity %.3f s (%.0f MB/s), jverity %.3f s (%.0f MB/s), jverity start-up %.3f s\n", s, f, s/f/1e6, j, s/j/1e6, st
  printf "1000 files: fsverity %.3f s, jverity %.3f s\n", f2, j2
  printf "tree of %d files: fsverity %.3f s (%.1f us a file), jverity %.3f s (%.1f us a file)\n", n, f3, f3/n*1e6, j3, j3/n*1e6
  printf "RATIO digest_1g_over_fsverity %.2f\n", f/j
  printf "RATIO digest_1000_files_over_fsverity %.2f\n", f2/j2
  printf "RATIO digest_recursive_%d_files_over_fsverity %.2f\n", n, f3/j3
}'
