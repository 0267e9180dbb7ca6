/*
 * The native Reed-Solomon accumulation: org.jverity.fec.PackedInterleaved's feed and feed2, the
 * loop FEC encoding spends its time in. Each message byte v of codeword w XORs the packed parity
 * v·c_i (table row t, `words` longs per entry) into the codeword's accumulator; feed2 takes two
 * message positions per pass over the accumulators.
 *
 * Why native: `format --fec-device` is a whole process, and this loop runs at its C2 speed only
 * after the JIT compiled it, a few hundred milliseconds in; here it runs at full speed at once.
 *
 * Tables are flat: entry v of word x at t[x * 256 + v]. Every range is checked before the arrays
 * are touched. Part of libjverity.so.
 */
#include <jni.h>
#include <stddef.h>

enum { OK = 0, BAD_RANGE = -2, NO_MEMORY = -3 };
enum { SYMBOLS = 256, MAX_WORDS = 3 };

static int fits(jlong off, jlong length, jsize size) {
  return off >= 0 && length >= 0 && off + length <= (jlong)size;
}

/* feeds into acc; u == NULL: one position (bytes at b only), else two (b and b2). */
static void feed(jlong *acc, jint words, jint width, const unsigned char *b,
                 const unsigned char *b2, const jlong *t, const jlong *u) {
  switch (words) {
    case 1:
      if (u == NULL) {
        for (jint w = 0; w < width; w++) acc[w] ^= t[b[w]];
      } else {
        for (jint w = 0; w < width; w++) acc[w] ^= t[b[w]] ^ u[b2[w]];
      }
      break;
    case 2:
      for (jint w = 0; w < width; w++) {
        jlong *a = acc + 2 * (size_t)w;
        unsigned v = b[w];
        if (u == NULL) {
          a[0] ^= t[v];
          a[1] ^= t[SYMBOLS + v];
        } else {
          unsigned x = b2[w];
          a[0] ^= t[v] ^ u[x];
          a[1] ^= t[SYMBOLS + v] ^ u[SYMBOLS + x];
        }
      }
      break;
    default:
      for (jint w = 0; w < width; w++) {
        jlong *a = acc + 3 * (size_t)w;
        unsigned v = b[w];
        if (u == NULL) {
          a[0] ^= t[v];
          a[1] ^= t[SYMBOLS + v];
          a[2] ^= t[2 * SYMBOLS + v];
        } else {
          unsigned x = b2[w];
          a[0] ^= t[v] ^ u[x];
          a[1] ^= t[SYMBOLS + v] ^ u[SYMBOLS + x];
          a[2] ^= t[2 * SYMBOLS + v] ^ u[2 * SYMBOLS + x];
        }
      }
  }
}

/*
 * acc[w·words ...] ^= t[bytes[off + w]] (and ^= u[bytes[off2 + w]] when u is not null), for w in
 * [0, width).
 */
JNIEXPORT jint JNICALL Java_org_jverity_fec_NativeFec_feedRun(JNIEnv *env, jclass cls,
                                                          jlongArray acc_array, jint words,
                                                          jint width, jbyteArray bytes_array,
                                                          jint off, jint off2, jlongArray t_array,
                                                          jlongArray u_array) {
  (void)cls;
  if (words < 1 || words > MAX_WORDS || width < 1) return BAD_RANGE;
  jsize table = (jsize)words * SYMBOLS;
  jsize bytes_length = (*env)->GetArrayLength(env, bytes_array);
  if (!fits(0, (jlong)width * words, (*env)->GetArrayLength(env, acc_array)) ||
      !fits(off, width, bytes_length) ||
      (*env)->GetArrayLength(env, t_array) < table ||
      (u_array != NULL &&
       (!fits(off2, width, bytes_length) || (*env)->GetArrayLength(env, u_array) < table))) {
    return BAD_RANGE;
  }
  /* Critical: in place, no copies, and no JNI call until released. A call feeds one or two
   * message bytes of up to a few hundred thousand codewords: well under a millisecond. */
  jlong *acc = (*env)->GetPrimitiveArrayCritical(env, acc_array, NULL);
  unsigned char *bytes = acc == NULL ? NULL : (*env)->GetPrimitiveArrayCritical(env, bytes_array, NULL);
  jlong *t = bytes == NULL ? NULL : (*env)->GetPrimitiveArrayCritical(env, t_array, NULL);
  jlong *u = t == NULL || u_array == NULL ? NULL : (*env)->GetPrimitiveArrayCritical(env, u_array, NULL);
  jint r = NO_MEMORY;
  if (t != NULL && (u_array == NULL || u != NULL)) {
    feed(acc, words, width, bytes + off, u == NULL ? NULL : bytes + off2, t, u);
    r = OK;
  }
  if (u != NULL) (*env)->ReleasePrimitiveArrayCritical(env, u_array, u, JNI_ABORT);
  if (t != NULL) (*env)->ReleasePrimitiveArrayCritical(env, t_array, t, JNI_ABORT);
  if (bytes != NULL) (*env)->ReleasePrimitiveArrayCritical(env, bytes_array, bytes, JNI_ABORT);
  if (acc != NULL) (*env)->ReleasePrimitiveArrayCritical(env, acc_array, acc, 0);
  return r;
}
