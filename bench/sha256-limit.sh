#!/usr/bin/env bash
# sha256-limit.sh — this CPU's SHA-256 limits on dm-verity's pattern (H(salt || 4 KiB block), a
# 32-byte salt), per core and for all cores: one stream (libcrypto, a block at a time: what
# veritysetup and fsverity do) and two streams (jverity's SHA-NI loop, two blocks at a time:
# jverity-core/src/main/c/sha256_x2.c). Digests are compared with libcrypto's before timing.
# Best of REPS runs of SECS seconds each; "all cores" runs one process per core at once and sums.
# Ends with the LIMIT lines (MB/s of block data) and the two-over-one ratio:
#   LIMIT sha256_one_stream_1core  LIMIT sha256_one_stream_all  (nproc cores)
#   LIMIT sha256_two_stream_1core  LIMIT sha256_two_stream_all
#   RATIO sha256_two_over_one_stream_1core
# Usage: bench/sha256-limit.sh     Env: SECS=2 REPS=3
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$here/../jverity-core/src/main/c
SECS=${SECS:-2} REPS=${REPS:-3}
n=$(nproc)
tmp=$(mktemp -d /tmp/sha256-limit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -std=c11 -Wall -Wextra -Werror -I"$src" -o "$tmp/probe" "$here/probe/sha256_limit.c" \
  "$src/sha256_x2.c" -lcrypto
echo "# $(date -u +%FT%TZ) $n cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
grep -qw sha_ni /proc/cpuinfo && echo "# the CPU has SHA-NI" || echo "# the CPU has no SHA-NI"

best() { sort -n | tail -1; }
one_core() { for _ in $(seq "$REPS"); do "$tmp/probe" "$1" "$SECS"; done | best; }
all_cores() {
  for _ in $(seq "$REPS"); do
    for _ in $(seq "$n"); do "$tmp/probe" "$1" "$SECS" > "$tmp/out.$RANDOM$RANDOM" & done
    wait
    cat "$tmp"/out.* | awk '{s += $1} END {printf "%.0f\n", s}'
    rm -f "$tmp"/out.*
  done | best
}

o1=$(one_core one); oa=$(all_cores one)
rc=0
"$tmp/probe" two 0 > /dev/null || rc=$?
case $rc in
  0) t1=$(one_core two); ta=$(all_cores two) ;;
  3) echo "# no two-stream path here: its limits are nan"; t1=nan ta=nan ;;
  *) echo "sha256-limit: the two-stream probe failed (exit $rc)" >&2; exit 1 ;;
esac
printf '%-28s %12s %12s\n' "SHA-256, 4 KiB blocks" "1 core" "$n cores"
printf '%-28s %9s MB/s %9s MB/s\n' "one stream (libcrypto)" "$o1" "$oa" "two streams (SHA-NI)" "$t1" "$ta"
echo "LIMIT sha256_one_stream_1core $o1"
echo "LIMIT sha256_one_stream_all $oa"
echo "LIMIT sha256_two_stream_1core $t1"
echo "LIMIT sha256_two_stream_all $ta"
echo "RATIO sha256_two_over_one_stream_1core $(awk -v a="$t1" -v b="$o1" 'BEGIN {if (a == "nan") print "nan"; else printf "%.2f\n", a / b}')"
