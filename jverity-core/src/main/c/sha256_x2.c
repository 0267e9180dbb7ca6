/*
 * SHA-256 of two equal-length messages at once, with x86's SHA-NI instructions or arm64's ARMv8
 * SHA-2 instructions. Part of libjverity.so; used by hash_blocks.c for runs of blocks.
 *
 * Why two: SHA-NI's round instruction (sha256rnds2) has a long latency, and one message is one
 * chain of dependent rounds, so a core that hashes one message waits on it most of the time. Two
 * independent messages interleaved in one loop keep two chains in flight: ~1.8x the one-stream
 * rate here (AMD EPYC; the kernel's 2024 sha256_finup_2x for dm-verity and fs-verity measured
 * 80-100% on Zen). The round and schedule steps follow Intel's SHA extensions paper
 * ("Intel SHA Extensions", 2013) as every SHA-NI implementation does.
 *
 * A message is a block with the salt before it (dm-verity v1) or after it (v0, fs-verity's
 * padded salt is before). The whole 64-byte chunks of a leading salt are hashed once per run (the
 * salted state, as the kernel keeps for dm-verity); the chunks that lie inside the block are read
 * where they are; only the chunks that straddle the salt and the block, and the padding, are
 * copied. Chosen at run time (CPUID on x86, the SHA2 hwcap on arm64); JVERITY_SHA256_X2=off turns
 * it off (the one-stream loop over libcrypto runs instead).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sha256_x2.h"

static const uint32_t K256[64] __attribute__((unused)) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>


#define X2_TARGET __attribute__((target("sha,sse4.1,ssse3")))

/* The state as SHA-NI holds it: ABEF and CDGH. */
typedef struct {
  __m128i abef, cdgh;
} ni_state;

X2_TARGET static ni_state ni_load(const uint32_t s[8]) {
  __m128i dcba = _mm_loadu_si128((const __m128i *)&s[0]);
  __m128i hgfe = _mm_loadu_si128((const __m128i *)&s[4]);
  __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  ni_state r = {_mm_alignr_epi8(cdab, efgh, 8), _mm_blend_epi16(efgh, cdab, 0xF0)};
  return r;
}

X2_TARGET static void ni_store(ni_state st, uint32_t s[8]) {
  __m128i feba = _mm_shuffle_epi32(st.abef, 0x1B);
  __m128i dchg = _mm_shuffle_epi32(st.cdgh, 0xB1);
  _mm_storeu_si128((__m128i *)&s[0], _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128((__m128i *)&s[4], _mm_alignr_epi8(dchg, feba, 8));
}

/* Four rounds of one message: its schedule words w plus the round constants. */
#define ROUNDS4(st, w, k)                                       \
  do {                                                          \
    __m128i m_ = _mm_add_epi32((w), (k));                       \
    (st).cdgh = _mm_sha256rnds2_epu32((st).cdgh, (st).abef, m_); \
    m_ = _mm_shuffle_epi32(m_, 0x0E);                           \
    (st).abef = _mm_sha256rnds2_epu32((st).abef, (st).cdgh, m_); \
  } while (0)

/* The next four schedule words from the last sixteen (w0 oldest). */
#define NEXT_W(w0, w1, w2, w3) \
  _mm_sha256msg2_epu32(        \
      _mm_add_epi32(_mm_sha256msg1_epu32((w0), (w1)), _mm_alignr_epi8((w3), (w2), 4)), (w3))

/*
 * Compresses n 64-byte chunks of each message into its state, the two messages' rounds
 * interleaved so that both dependency chains are in flight.
 */
X2_TARGET static void compress_x2(uint32_t s0[8], uint32_t s1[8], const uint8_t *p0,
                                  const uint8_t *p1, size_t n) {
  const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  ni_state a = ni_load(s0), b = ni_load(s1);
  for (; n > 0; n--, p0 += 64, p1 += 64) {
    ni_state a0 = a, b0 = b;
    __m128i wa[4], wb[4];
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
      wa[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p0 + 16 * i)), bswap);
      wb[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p1 + 16 * i)), bswap);
    }
    /* Unrolled whole, so that the schedule words stay in registers and the two messages' rounds
     * interleave. */
#pragma GCC unroll 16
    for (int g = 0; g < 16; g++) {
      __m128i k = _mm_loadu_si128((const __m128i *)&K256[4 * g]);
      if (g >= 4) { /* wa[g % 4] held w[g - 4]; it becomes w[g] */
        wa[g & 3] = NEXT_W(wa[g & 3], wa[(g + 1) & 3], wa[(g + 2) & 3], wa[(g + 3) & 3]);
        wb[g & 3] = NEXT_W(wb[g & 3], wb[(g + 1) & 3], wb[(g + 2) & 3], wb[(g + 3) & 3]);
      }
      ROUNDS4(a, wa[g & 3], k);
      ROUNDS4(b, wb[g & 3], k);
    }
    a.abef = _mm_add_epi32(a.abef, a0.abef);
    a.cdgh = _mm_add_epi32(a.cdgh, a0.cdgh);
    b.abef = _mm_add_epi32(b.abef, b0.abef);
    b.cdgh = _mm_add_epi32(b.cdgh, b0.cdgh);
  }
  ni_store(a, s0);
  ni_store(b, s1);
}

static int cpu_has_sha256_instructions(void) {
  unsigned int a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3)) return 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  return (b & bit_SHA) != 0;
}

#elif defined(__aarch64__) && defined(__GNUC__)
#include <arm_neon.h>
#include <sys/auxv.h>

#ifndef HWCAP_SHA2
#define HWCAP_SHA2 (1 << 6) /* <asm/hwcap.h> on arm64 */
#endif

/*
 * The same two interleaved chains with the ARMv8 SHA-2 instructions (sha256h, sha256h2: four
 * rounds each; sha256su0, sha256su1: the schedule), which hold the state as ABCD and EFGH.
 */
#define X2_TARGET __attribute__((target("arch=armv8-a+crypto")))

/* Four rounds of one message (abcd, efgh) on schedule words w plus the round constants. */
#define ROUNDS4(abcd, efgh, w, k)                 \
  do {                                            \
    uint32x4_t m_ = vaddq_u32((w), (k));          \
    uint32x4_t abcd_ = (abcd);                    \
    (abcd) = vsha256hq_u32((abcd), (efgh), m_);   \
    (efgh) = vsha256h2q_u32((efgh), abcd_, m_);   \
  } while (0)

X2_TARGET static void compress_x2(uint32_t s0[8], uint32_t s1[8], const uint8_t *p0,
                                  const uint8_t *p1, size_t n) {
  uint32x4_t a_abcd = vld1q_u32(&s0[0]), a_efgh = vld1q_u32(&s0[4]);
  uint32x4_t b_abcd = vld1q_u32(&s1[0]), b_efgh = vld1q_u32(&s1[4]);
  for (; n > 0; n--, p0 += 64, p1 += 64) {
    uint32x4_t a0 = a_abcd, a1 = a_efgh, b0 = b_abcd, b1 = b_efgh;
    uint32x4_t wa[4], wb[4];
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
      wa[i] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p0 + 16 * i)));
      wb[i] = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p1 + 16 * i)));
    }
#pragma GCC unroll 16
    for (int g = 0; g < 16; g++) {
      uint32x4_t k = vld1q_u32(&K256[4 * g]);
      if (g >= 4) { /* wa[g % 4] held w[g - 4]; it becomes w[g] */
        wa[g & 3] = vsha256su1q_u32(vsha256su0q_u32(wa[g & 3], wa[(g + 1) & 3]), wa[(g + 2) & 3],
                                    wa[(g + 3) & 3]);
        wb[g & 3] = vsha256su1q_u32(vsha256su0q_u32(wb[g & 3], wb[(g + 1) & 3]), wb[(g + 2) & 3],
                                    wb[(g + 3) & 3]);
      }
      ROUNDS4(a_abcd, a_efgh, wa[g & 3], k);
      ROUNDS4(b_abcd, b_efgh, wb[g & 3], k);
    }
    a_abcd = vaddq_u32(a_abcd, a0);
    a_efgh = vaddq_u32(a_efgh, a1);
    b_abcd = vaddq_u32(b_abcd, b0);
    b_efgh = vaddq_u32(b_efgh, b1);
  }
  vst1q_u32(&s0[0], a_abcd);
  vst1q_u32(&s0[4], a_efgh);
  vst1q_u32(&s1[0], b_abcd);
  vst1q_u32(&s1[4], b_efgh);
}

static int cpu_has_sha256_instructions(void) { return (getauxval(AT_HWCAP) & HWCAP_SHA2) != 0; }

#else /* neither x86-64 nor arm64 with GCC: the one-stream loop stays */

static int cpu_has_sha256_instructions(void) { return 0; }

static void compress_x2(uint32_t s0[8], uint32_t s1[8], const uint8_t *p0, const uint8_t *p1,
                        size_t n) {
  (void)s0, (void)s1, (void)p0, (void)p1, (void)n;
  abort(); /* never called: jv_sha256_x2_available() is 0 */
}

#endif

static const uint32_t IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

int jv_sha256_x2_available(void) {
  /* Asked from every hashing thread: an atomic, so the first callers may each work the answer out
   * (the same one) without a data race. */
  static int known = -1;
  int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (k < 0) {
    const char *off = getenv("JVERITY_SHA256_X2");
    k = (off != NULL && strcmp(off, "off") == 0) ? 0 : cpu_has_sha256_instructions();
    __atomic_store_n(&known, k, __ATOMIC_RELAXED);
  }
  return k;
}

/* One message's layout: region a (its first bytes), then region b. */
typedef struct {
  const uint8_t *a, *b;
  size_t a_len, b_len;
} layout;

/* Copies bytes [pos, pos + n) of the message into dst. */
static void gather(uint8_t *dst, const layout *m, size_t pos, size_t n) {
  while (n > 0) {
    size_t k;
    if (pos < m->a_len) {
      k = m->a_len - pos < n ? m->a_len - pos : n;
      memcpy(dst, m->a + pos, k);
    } else {
      k = n;
      memcpy(dst, m->b + (pos - m->a_len), k);
    }
    dst += k, pos += k, n -= k;
  }
}

static void put_digest(uint8_t *out, const uint32_t s[8]) {
  for (int i = 0; i < 8; i++) {
    out[4 * i] = (uint8_t)(s[i] >> 24);
    out[4 * i + 1] = (uint8_t)(s[i] >> 16);
    out[4 * i + 2] = (uint8_t)(s[i] >> 8);
    out[4 * i + 3] = (uint8_t)s[i];
  }
}

/*
 * The digests of two messages of one layout but for their blocks (b0, b1), from state `start`
 * after `pos` bytes (whole chunks of a leading salt).
 */
static void hash_pair(const uint32_t start[8], size_t pos, const uint8_t *salt, size_t salt_len,
                      int salt_first, const uint8_t *b0, const uint8_t *b1, size_t len,
                      uint8_t *out0, uint8_t *out1) {
  layout m0 = salt_first ? (layout){salt, b0, salt_len, len} : (layout){b0, salt, len, salt_len};
  layout m1 = salt_first ? (layout){salt, b1, salt_len, len} : (layout){b1, salt, len, salt_len};
  size_t total = salt_len + len;
  size_t block_at = salt_first ? salt_len : 0; /* where the block lies in the message */
  uint32_t s0[8], s1[8];
  memcpy(s0, start, sizeof s0);
  memcpy(s1, start, sizeof s1);
  uint8_t c0[128], c1[128];
  while (pos + 64 <= total) {
    if (pos >= block_at && pos + 64 <= block_at + len) { /* inside the block: read in place */
      size_t n = (block_at + len - pos) / 64;
      compress_x2(s0, s1, b0 + (pos - block_at), b1 + (pos - block_at), n);
      pos += 64 * n;
    } else { /* across the salt and the block, or in the salt after it */
      gather(c0, &m0, pos, 64);
      gather(c1, &m1, pos, 64);
      compress_x2(s0, s1, c0, c1, 1);
      pos += 64;
    }
  }
  size_t rest = total - pos; /* < 64: the last bytes, then the padding, in one chunk or two */
  size_t padded = rest + 9 <= 64 ? 64 : 128;
  memset(c0, 0, padded);
  memset(c1, 0, padded);
  gather(c0, &m0, pos, rest);
  gather(c1, &m1, pos, rest);
  c0[rest] = c1[rest] = 0x80;
  uint64_t bits = (uint64_t)total * 8;
  for (int i = 0; i < 8; i++) {
    c0[padded - 1 - i] = c1[padded - 1 - i] = (uint8_t)(bits >> (8 * i));
  }
  compress_x2(s0, s1, c0, c1, padded / 64);
  put_digest(out0, s0);
  put_digest(out1, s1);
}

/* The state after the whole 64-byte chunks of a leading salt (hashed once); returns their bytes. */
static size_t salted_start(const uint8_t *salt, size_t salt_len, int salt_first, uint32_t start[8]) {
  uint32_t unused[8];
  memcpy(start, IV, 8 * sizeof start[0]);
  memcpy(unused, IV, sizeof unused);
  if (!salt_first || salt_len < 64) return 0;
  compress_x2(start, unused, salt, salt, salt_len / 64);
  return salt_len / 64 * 64;
}

void jv_sha256_x2_run(const uint8_t *salt, size_t salt_len, int salt_first, const uint8_t *blocks,
                      size_t block_size, size_t pairs, uint8_t *out, size_t stride) {
  uint32_t start[8];
  size_t pos = salted_start(salt, salt_len, salt_first, start);
  for (size_t i = 0; i < pairs; i++) {
    const uint8_t *b0 = blocks + 2 * i * block_size;
    hash_pair(start, pos, salt, salt_len, salt_first, b0, b0 + block_size, block_size,
              out + 2 * i * stride, out + (2 * i + 1) * stride);
  }
}

void jv_sha256_x2_two(const uint8_t *salt, size_t salt_len, int salt_first, const uint8_t *b0,
                      const uint8_t *b1, size_t block_size, uint8_t *out0, uint8_t *out1) {
  uint32_t start[8];
  size_t pos = salted_start(salt, salt_len, salt_first, start);
  hash_pair(start, pos, salt, salt_len, salt_first, b0, b1, block_size, out0, out1);
}
