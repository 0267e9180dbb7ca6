/*
 * The native block-hashing loop: the digests of a run of equal-sized blocks, each hashed with a
 * salt before or after it, by the system's libcrypto (OpenSSL), or for SHA-256 on a CPU with
 * SHA-NI two blocks at a time (sha256_x2.c). Part of libjverity.so.
 *
 * Why native: a one-shot command (format, verify, digest) is a whole process, and the JDK's SHA-2
 * runs at full speed only once the JIT has compiled it, ~400 ms in; libcrypto uses SHA-NI or AVX2
 * from its first call. Why one call per run of blocks: a JNI call costs well under a microsecond
 * even from interpreted code, so a run of 32 blocks pays nothing for the crossing; FFM was
 * measured at ~50 ms to bind its first downcall (with an AOT cache), more than it would save.
 *
 * Called only by org.jverity.hash.NativeHashing, which checks the arguments, self-tests every
 * algorithm against the JDK before using it, and falls back to Java when this library is absent.
 * The ranges are checked here again: a bad index must not become a wild write.
 */
/* SHA256_Init & co are deprecated in OpenSSL 3 but still exported, and the shortest route to its
 * fastest code: no EVP dispatch or context copy through the provider per block. */
#define OPENSSL_SUPPRESS_DEPRECATED
#define OPENSSL_API_COMPAT 10101
#include <jni.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <stddef.h>

#include "sha256_x2.h"

/* Algorithm codes, as NativeHashing numbers them. */
enum { ALG_SHA1 = 1, ALG_SHA224 = 2, ALG_SHA256 = 3, ALG_SHA384 = 4, ALG_SHA512 = 5 };

/* Results, as NativeHashing reads them. */
enum { OK = 0, UNKNOWN_ALGORITHM = -1, BAD_RANGE = -2, NO_MEMORY = -3 };

/* Longest salt taken: dm-verity's is at most 256 bytes, fs-verity's 32 (padded to 128). */
#define MAX_SALT 1024

/*
 * Hashes `count` blocks with one algorithm's context type and functions. With the salt first,
 * the salted state is computed once and copied per block (what the kernel does for dm-verity).
 */
#define HASH_RUN(CTX, INIT, UPDATE, FINAL)                                   \
  do {                                                                       \
    CTX salted, c;                                                           \
    INIT(&salted);                                                           \
    if (salt_first) UPDATE(&salted, salt, (size_t)salt_len);                 \
    for (jint i = 0; i < count; i++) {                                       \
      c = salted;                                                            \
      UPDATE(&c, blocks + (size_t)i * (size_t)block_size, (size_t)block_size); \
      if (!salt_first) UPDATE(&c, salt, (size_t)salt_len);                   \
      FINAL(out + (size_t)i * (size_t)stride, &c);                           \
    }                                                                        \
  } while (0)

/* Pairs of SHA-256 blocks hashed two at a time since load: the tests' proof that a path used the
 * two streams (a relaxed add per run, not per block, costs nothing against a run's hashing). */
static jlong sha256_pairs;

static jint digest_size(jint algorithm) {
  switch (algorithm) {
    case ALG_SHA1: return SHA_DIGEST_LENGTH;
    case ALG_SHA224: return SHA224_DIGEST_LENGTH;
    case ALG_SHA256: return SHA256_DIGEST_LENGTH;
    case ALG_SHA384: return SHA384_DIGEST_LENGTH;
    case ALG_SHA512: return SHA512_DIGEST_LENGTH;
    default: return -1;
  }
}

static void hash_run(jint algorithm, const unsigned char *salt, jint salt_len, jboolean salt_first,
                     const unsigned char *blocks, jint block_size, jint count, unsigned char *out,
                     jint stride) {
  switch (algorithm) {
    case ALG_SHA1: HASH_RUN(SHA_CTX, SHA1_Init, SHA1_Update, SHA1_Final); break;
    case ALG_SHA224: HASH_RUN(SHA256_CTX, SHA224_Init, SHA224_Update, SHA224_Final); break;
    case ALG_SHA256:
      if (count >= 2 && jv_sha256_x2_available()) { /* two at a time; an odd last one alone */
        jint pairs = count / 2;
        __atomic_fetch_add(&sha256_pairs, (jlong)pairs, __ATOMIC_RELAXED);
        jv_sha256_x2_run(salt, (size_t)salt_len, salt_first, blocks, (size_t)block_size,
                         (size_t)pairs, out, (size_t)stride);
        blocks += (size_t)2 * (size_t)pairs * (size_t)block_size;
        out += (size_t)2 * (size_t)pairs * (size_t)stride;
        count -= 2 * pairs;
        if (count == 0) break;
      }
      HASH_RUN(SHA256_CTX, SHA256_Init, SHA256_Update, SHA256_Final);
      break;
    case ALG_SHA384: HASH_RUN(SHA512_CTX, SHA384_Init, SHA384_Update, SHA384_Final); break;
    case ALG_SHA512: HASH_RUN(SHA512_CTX, SHA512_Init, SHA512_Update, SHA512_Final); break;
  }
}

/* Whether [off, off + length) lies within an array of `size` bytes (no overflow: 64-bit sums). */
static int within(jlong off, jlong length, jsize size) {
  return off >= 0 && length >= 0 && off + length <= (jlong)size;
}

/* Whether runs of SHA-256 blocks are hashed two at a time (SHA-NI, not turned off). */
JNIEXPORT jboolean JNICALL Java_org_jverity_hash_NativeHashing_sha256TwoStreams0(JNIEnv *env,
                                                                               jclass cls) {
  (void)env;
  (void)cls;
  return jv_sha256_x2_available() ? JNI_TRUE : JNI_FALSE;
}

/* How many pairs of SHA-256 blocks were hashed two at a time since the library was loaded. */
JNIEXPORT jlong JNICALL Java_org_jverity_hash_NativeHashing_sha256PairsHashed0(JNIEnv *env,
                                                                              jclass cls) {
  (void)env;
  (void)cls;
  return __atomic_load_n(&sha256_pairs, __ATOMIC_RELAXED);
}

JNIEXPORT jstring JNICALL Java_org_jverity_hash_NativeHashing_libcryptoVersion(JNIEnv *env,
                                                                              jclass cls) {
  (void)cls;
  return (*env)->NewStringUTF(env, OpenSSL_version(OPENSSL_VERSION));
}

/*
 * Hashes the run once the blocks are addressable: `blocks` points at the run's first block,
 * `out_array` has been range-checked. Returns OK or NO_MEMORY.
 */
static jint hash_into(JNIEnv *env, jint algorithm, const unsigned char *salt, jint salt_len,
                      jboolean salt_first, const unsigned char *blocks, jint block_size, jint count,
                      jbyteArray out_array, jint out_off, jint stride) {
  unsigned char *out = (*env)->GetPrimitiveArrayCritical(env, out_array, NULL);
  if (out == NULL) return NO_MEMORY;
  hash_run(algorithm, salt, salt_len, salt_first, blocks, block_size, count, out + out_off, stride);
  (*env)->ReleasePrimitiveArrayCritical(env, out_array, out, 0);
  return OK;
}

/* The checks both entry points make; copies the salt into `salt`. OK, or why not. */
static jint check(JNIEnv *env, jint algorithm, jbyteArray salt_array, unsigned char *salt,
                  jint *salt_len, jint block_size, jint count, jbyteArray out_array, jint out_off,
                  jint stride) {
  jint size = digest_size(algorithm);
  if (size < 0) return UNKNOWN_ALGORITHM;
  jsize n = (*env)->GetArrayLength(env, salt_array);
  if (n > MAX_SALT || block_size <= 0 || count <= 0 || stride < size) return BAD_RANGE;
  if (!within(out_off, (jlong)stride * (count - 1) + size, (*env)->GetArrayLength(env, out_array))) {
    return BAD_RANGE;
  }
  (*env)->GetByteArrayRegion(env, salt_array, 0, n, (jbyte *)salt);
  *salt_len = n;
  return OK;
}

/* A run in a heap array: blocks_array[off, off + block_size * count). */
JNIEXPORT jint JNICALL Java_org_jverity_hash_NativeHashing_hashRun(
    JNIEnv *env, jclass cls, jint algorithm, jbyteArray salt_array, jboolean salt_first,
    jbyteArray blocks_array, jint off, jint block_size, jint count, jbyteArray out_array,
    jint out_off, jint stride) {
  (void)cls;
  unsigned char salt[MAX_SALT];
  jint salt_len;
  jint r = check(env, algorithm, salt_array, salt, &salt_len, block_size, count, out_array, out_off,
                 stride);
  if (r != OK) return r;
  if (!within(off, (jlong)block_size * count, (*env)->GetArrayLength(env, blocks_array))) {
    return BAD_RANGE;
  }
  /* Critical: the arrays in place, no copy. No JNI call until they are released; a run is short
   * (tens of microseconds), and G1 pins the regions instead of waiting for us. */
  unsigned char *blocks = (*env)->GetPrimitiveArrayCritical(env, blocks_array, NULL);
  if (blocks == NULL) return NO_MEMORY;
  r = hash_into(env, algorithm, salt, salt_len, salt_first, blocks + off, block_size, count,
                out_array, out_off, stride);
  (*env)->ReleasePrimitiveArrayCritical(env, blocks_array, blocks, JNI_ABORT);
  return r;
}

/*
 * A run in a direct buffer (what a FileChannel reads into with one copy): from byte `off` of the
 * buffer's memory. Direct memory is the JVM's own allocation, never a file mapping (BlockHasher
 * hashes a mapped buffer in Java), so a truncated file cannot fault here.
 */
JNIEXPORT jint JNICALL Java_org_jverity_hash_NativeHashing_hashRunDirect(
    JNIEnv *env, jclass cls, jint algorithm, jbyteArray salt_array, jboolean salt_first,
    jobject buffer, jint off, jint block_size, jint count, jbyteArray out_array, jint out_off,
    jint stride) {
  (void)cls;
  unsigned char salt[MAX_SALT];
  jint salt_len;
  jint r = check(env, algorithm, salt_array, salt, &salt_len, block_size, count, out_array, out_off,
                 stride);
  if (r != OK) return r;
  const unsigned char *blocks = (*env)->GetDirectBufferAddress(env, buffer);
  jlong capacity = (*env)->GetDirectBufferCapacity(env, buffer);
  if (blocks == NULL || capacity < 0 || off < 0 || (jlong)off + (jlong)block_size * count > capacity) {
    return BAD_RANGE;
  }
  return hash_into(env, algorithm, salt, salt_len, salt_first, blocks + off, block_size, count,
                   out_array, out_off, stride);
}

/*
 * Two SHA-256 blocks that lie apart, a[a_off, a_off + len) and b[b_off, b_off + len), hashed
 * together by the two-stream path (a cold verified read's hash block and data block): digests to
 * out[out_a...] and out[out_b...]. BAD_RANGE when the path is absent (the caller asked
 * NativeHashing.sha256TwoStreams() first) or an index is out of its array.
 */
JNIEXPORT jint JNICALL Java_org_jverity_hash_NativeHashing_hashTwo0(
    JNIEnv *env, jclass cls, jbyteArray salt_array, jboolean salt_first, jbyteArray a_array,
    jint a_off, jbyteArray b_array, jint b_off, jint len, jbyteArray out_array, jint out_a,
    jint out_b) {
  (void)cls;
  unsigned char salt[MAX_SALT];
  jsize salt_len = (*env)->GetArrayLength(env, salt_array);
  jsize out_len = (*env)->GetArrayLength(env, out_array);
  if (!jv_sha256_x2_available() || salt_len > MAX_SALT || len <= 0 ||
      !within(a_off, len, (*env)->GetArrayLength(env, a_array)) ||
      !within(b_off, len, (*env)->GetArrayLength(env, b_array)) ||
      !within(out_a, SHA256_DIGEST_LENGTH, out_len) || !within(out_b, SHA256_DIGEST_LENGTH, out_len)) {
    return BAD_RANGE;
  }
  (*env)->GetByteArrayRegion(env, salt_array, 0, salt_len, (jbyte *)salt);
  /* Critical, all three, no JNI call between: nested critical regions are allowed. */
  unsigned char *a = (*env)->GetPrimitiveArrayCritical(env, a_array, NULL);
  if (a == NULL) return NO_MEMORY;
  unsigned char *b = (*env)->GetPrimitiveArrayCritical(env, b_array, NULL);
  if (b == NULL) {
    (*env)->ReleasePrimitiveArrayCritical(env, a_array, a, JNI_ABORT);
    return NO_MEMORY;
  }
  unsigned char *out = (*env)->GetPrimitiveArrayCritical(env, out_array, NULL);
  if (out == NULL) {
    (*env)->ReleasePrimitiveArrayCritical(env, b_array, b, JNI_ABORT);
    (*env)->ReleasePrimitiveArrayCritical(env, a_array, a, JNI_ABORT);
    return NO_MEMORY;
  }
  __atomic_fetch_add(&sha256_pairs, 1, __ATOMIC_RELAXED);
  jv_sha256_x2_two(salt, (size_t)salt_len, salt_first, a + a_off, b + b_off, (size_t)len,
                   out + out_a, out + out_b);
  (*env)->ReleasePrimitiveArrayCritical(env, out_array, out, 0);
  (*env)->ReleasePrimitiveArrayCritical(env, b_array, b, JNI_ABORT);
  (*env)->ReleasePrimitiveArrayCritical(env, a_array, a, JNI_ABORT);
  return OK;
}
