#!/usr/bin/env bash
# build.sh JAVA_HOME OUT_DIR — builds libjverityhash.so, the native block-hashing loop
# (jverity_hash.c), when a C compiler and libcrypto's headers are present; the build goes on
# without it otherwise (hashing stays in Java, with identical results). Run by jverity-core's
# Maven build on Unix; rebuilds only when the source is newer than the library.
set -euo pipefail
java_home=$1 out=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/jverity_hash.c
lib=$out/libjverityhash.so
cc=${CC:-gcc}
skip() { echo "[jverity-core] native hashing loop not built: $* (hashing stays in Java)"; exit 0; }
[ "$(uname -s)" = Linux ] || skip "not Linux"
command -v "$cc" >/dev/null || skip "no C compiler ($cc; Debian: gcc)"
[ -f "$java_home/include/jni.h" ] || skip "no jni.h under $java_home/include"
echo '#include <openssl/sha.h>' | "$cc" -E -x c - >/dev/null 2>&1 ||
  skip "no libcrypto headers (Debian: libssl-dev)"
if [ -f "$lib" ] && [ "$lib" -nt "$src" ] && [ "$lib" -nt "${BASH_SOURCE[0]}" ]; then
  exit 0
fi
mkdir -p "$out"
"$cc" -O2 -fPIC -shared -Wall -Wextra -Werror -fvisibility=hidden -std=c11 \
  -I"$java_home/include" -I"$java_home/include/linux" -o "$lib.tmp" "$src" -lcrypto
mv -f "$lib.tmp" "$lib"
echo "[jverity-core] built $lib"
