/*
 * libjverity.so: the loops a one-shot jverity command runs over every byte of an image, at full
 * speed from the process's first block (hash_blocks.c, fec_feed.c, read_whole.c), and the file
 * calls of org.jverity.posix.Posix (posix.c), bound at no cost where FFM's cost ~60 ms. Loaded by
 * org.jverity.internal.NativeLibrary, which refuses a library of another interface version.
 */
#include <jni.h>

/* Bumped whenever a native method's signature or meaning changes. */
#define ABI_VERSION 5

JNIEXPORT jint JNICALL Java_org_jverity_internal_NativeLibrary_abiVersion(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return ABI_VERSION;
}
