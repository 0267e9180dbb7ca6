#!/usr/bin/env bash
# build.sh JAVA_HOME OUT_DIR — builds libjverity.so, the native loops of the one-shot commands
# (block hashing over libcrypto, Reed-Solomon accumulation: the *.c files here), when a C compiler
# and libcrypto's headers are present; the build goes on without it otherwise (the loops stay in
# Java, with identical results). Run by jverity-core's Maven build on Unix; rebuilds only when a
# source is newer than the library.
set -euo pipefail
java_home=$1 out=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
lib=$out/libjverity.so
cc=${CC:-gcc}
skip() { echo "[jverity-core] libjverity.so not built: $* (its loops stay in Java)"; exit 0; }
[ "$(uname -s)" = Linux ] || skip "not Linux"
command -v "$cc" >/dev/null || skip "no C compiler ($cc; Debian: gcc)"
[ -f "$java_home/include/jni.h" ] || skip "no jni.h under $java_home/include"
echo '#include <openssl/sha.h>' | "$cc" -E -x c - >/dev/null 2>&1 ||
  skip "no libcrypto headers (Debian: libssl-dev)"
if [ -f "$lib" ] && [ -z "$(find "$here" -newer "$lib" -print -quit)" ]; then
  exit 0
fi
mkdir -p "$out"
# Debian's hardening flags (relro, bind now, fortify); libc named after libcrypto with
# --no-as-needed, so the library says it needs the libc it runs on (lintian checks both).
"$cc" -O2 -fPIC -shared -Wall -Wextra -Werror -fvisibility=hidden -std=c11 -D_FORTIFY_SOURCE=2 \
  -Wl,-z,relro,-z,now -I"$java_home/include" -I"$java_home/include/linux" -o "$lib.tmp" \
  "$here"/*.c -lcrypto -Wl,--no-as-needed -lc
mv -f "$lib.tmp" "$lib"
echo "[jverity-core] built $lib"
