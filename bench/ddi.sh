#!/usr/bin/env bash
# ddi.sh — `jverity ddi build` against systemd-repart 252 building the same signed DDI (root, its
# verity partition, its signature partition) from the same ext4 image, in one run, as root (repart
# needs it: its verity step goes through a loop device). Whole processes as a user runs them (JVM
# start included), the images in page cache.
#
# Usage: bench/ddi.sh [SIZE]      SIZE of the ext4 image, default 256M (IEC)
# Env:   RUNS=5 WARMUP=1          hyperfine runs per command
#
# What it does:
#   1. builds jverity (untimed); makes an ext4 image of SIZE with mkfs.ext4 -d from random files,
#      an RSA key and certificate, and repart.d definitions (Type=root/root-verity/root-verity-sig,
#      Verity=data/hash/signature, CopyBlocks= the ext4 image);
#   2. builds once each way (untimed) and checks both: `jverity ddi verify` with the certificate
#      trusted accepts each image, `sgdisk -v` finds no problem in either; exits 1 otherwise;
#   3. one hyperfine invocation: repart, jverity with its defaults (4 KiB verity blocks), and
#      jverity with repart 252's 512-byte blocks, each removing its previous output first;
#   4. re-checks the images the timed runs left, prints the table.
# The RATIO lines (repart median / jverity median: > 1 means jverity is faster):
#   RATIO ddi_build_over_repart <x.xx>          jverity's defaults
#   RATIO ddi_build_512_over_repart <x.xx>      jverity with --block-size 512, as repart 252 builds
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JV="$ROOT/bin/jverity"
die() { echo "ddi.sh: $*" >&2; exit 2; }
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
RUNS=${RUNS:-5}
WARMUP=${WARMUP:-1}
[ "$(id -u)" = 0 ] || die "run as root: systemd-repart 252 needs a loop device for its verity step"
for t in systemd-repart sgdisk mkfs.ext4 hyperfine openssl numfmt; do
  command -v "$t" >/dev/null || die "missing tool: $t (Debian: systemd gdisk e2fsprogs hyperfine openssl)"
done
bench_json_tool
SIZE=$(numfmt --from=iec "${1:-256M}") || die "bad SIZE: ${1:-}"
echo "# building jverity (untimed): $JV --version" >&2
"$JV" --version >/dev/null || die "bin/jverity --version failed"
# On a disk, not tmpfs: repart's loop device reads with O_DIRECT, which tmpfs refuses (its verity
# step fails with "Input/output error while creating hash area"); the files stay in page cache.
DIR=$(mktemp -d "${TMPDIR:-/var/tmp}/jverity-ddi.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
trap 'exit 130' INT TERM
WHERE="$(dirname "$DIR") (page cache)"
cd "$DIR"

mkdir -p src keys repart.d
# files of random bytes filling ~3/4 of the file system
left=$((SIZE * 3 / 4)); i=0
while [ "$left" -gt 0 ]; do
  n=$((left < 8388608 ? left : 8388608))
  head -c "$n" /dev/urandom > "src/file$i.bin"; left=$((left - n)); i=$((i + 1))
done
mkfs.ext4 -q -b 4096 -d src rootfs.ext4 "$((SIZE / 4096))"  # a count of 4 KiB blocks
rm -rf src
openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj /CN=ddi-bench 2>/dev/null
cp cert.pem keys/signer.crt
printf '[Partition]\nType=root\nVerity=data\nVerityMatchKey=root\nCopyBlocks=%s\n' "$DIR/rootfs.ext4" > repart.d/10-root.conf
# repart 252 does not size the verity partition for its tree (512-byte blocks: 1/16 of the data at
# level 0): past its 10 MiB default the verity step fails with an I/O error, so give it room.
printf '[Partition]\nType=root-verity\nVerity=hash\nVerityMatchKey=root\nSizeMinBytes=%s\n' \
  $(((SIZE / 14 / 1048576 + 1) * 1048576)) > repart.d/20-root-verity.conf
printf '[Partition]\nType=root-verity-sig\nVerity=signature\nVerityMatchKey=root\n' > repart.d/30-root-verity-sig.conf

REPART="rm -f repart.raw && systemd-repart --empty=create --size=auto --dry-run=no --definitions=$DIR/repart.d --private-key=key.pem --certificate=cert.pem repart.raw"
JVB="rm -f jverity.raw && $JV ddi build jverity.raw --root rootfs.ext4 --key key.pem --cert cert.pem --seed 0b8cbd47-7b6d-4a9d-9d3f-3d6a3f1f2a10 --arch x86-64"
JVB512="rm -f jverity512.raw && $JV ddi build jverity512.raw --root rootfs.ext4 --block-size 512 --key key.pem --cert cert.pem --seed 0b8cbd47-7b6d-4a9d-9d3f-3d6a3f1f2a10 --arch x86-64"

check() { # the three images: verified by jverity with the certificate trusted, clean for sgdisk
  local f
  for f in repart.raw jverity.raw jverity512.raw; do
    "$JV" ddi verify "$f" --cert-dir keys --arch x86-64 >/dev/null || { echo "!!! $f does not verify" >&2; exit 1; }
    sgdisk -v "$f" | grep -q "No problems found" || { echo "!!! sgdisk -v: $f" >&2; sgdisk -v "$f" >&2; exit 1; }
  done
}
echo "# untimed builds and checks" >&2
bash -c "$REPART" >/dev/null 2>&1 || { bash -c "$REPART"; die "systemd-repart failed"; }
JVERITY_NO_PROGRESS=1 bash -c "$JVB" >/dev/null
JVERITY_NO_PROGRESS=1 bash -c "$JVB512" >/dev/null
check

bench_hyperfine "$DIR/hf.json" "$DIR" "$RUNS" "$WARMUP" \
  "systemd-repart 252" "bash -c '$REPART'" \
  "jverity ddi build" "bash -c '$JVB'" \
  "jverity ddi build --block-size 512" "bash -c '$JVB512'"
check

echo
echo "ddi build of a $(numfmt --to=iec "$SIZE") ext4 image, signed (RSA 2048), $WHERE; load $LOAD_BEFORE -> $LOAD_AFTER"
printf '%-36s %10s %10s %12s\n' command "min s" "median s" "user+sys s"
declare -a MED
while IFS=$'\t' read -r name min med cpu; do
  printf '%-36s %10.3f %10.3f %12.3f\n' "$name" "$min" "$med" "$cpu"
  MED+=("$med")
done < <(bench_stats "$DIR/hf.json")
echo "RATIO ddi_build_over_repart $(bench_div "${MED[0]}" "${MED[1]}")"
echo "RATIO ddi_build_512_over_repart $(bench_div "${MED[0]}" "${MED[2]}")"
