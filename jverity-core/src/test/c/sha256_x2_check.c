/*
 * sha256_x2_check: jv_sha256_x2_run (sha256_x2.c) against a plain C SHA-256 written from FIPS
 * 180-4, with no library, so that it runs wherever the two-stream path is built: on this machine
 * and, cross-compiled, on arm64 under qemu (Sha256TwoStreamsOnArm64Test). Blocks of 1 to 4200
 * bytes, salts of 0 to 200 bytes before and after, runs of 1 to 4 pairs at odd offsets. Prints
 * "two streams: N digests" and exits 0 when every digest matches; 1 on a mismatch (naming it); 3
 * when this CPU has no two-stream path (jv_sha256_x2_available() is 0).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256_x2.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void compress(uint32_t h[8], const uint8_t p[64]) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++) {
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
           p[4 * i + 3];
  }
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
    uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

/* SHA-256 of m[0, n). */
static void sha256(const uint8_t *m, size_t n, uint8_t out[32]) {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  size_t i = 0;
  for (; i + 64 <= n; i += 64) compress(h, m + i);
  uint8_t last[128] = {0};
  size_t rest = n - i, padded = rest + 9 <= 64 ? 64 : 128;
  memcpy(last, m + i, rest);
  last[rest] = 0x80;
  for (int k = 0; k < 8; k++) last[padded - 1 - k] = (uint8_t)((uint64_t)n * 8 >> (8 * k));
  compress(h, last);
  if (padded == 128) compress(h, last + 64);
  for (int k = 0; k < 8; k++) {
    out[4 * k] = (uint8_t)(h[k] >> 24), out[4 * k + 1] = (uint8_t)(h[k] >> 16);
    out[4 * k + 2] = (uint8_t)(h[k] >> 8), out[4 * k + 3] = (uint8_t)h[k];
  }
}

int main(void) {
  if (!jv_sha256_x2_available()) {
    printf("no two-stream path on this CPU\n");
    return 3;
  }
  static const size_t lens[] = {1, 55, 56, 63, 64, 65, 97, 119, 120, 128, 1000, 4096, 4200};
  static const size_t salts[] = {0, 1, 32, 55, 63, 64, 65, 100, 128, 200};
  enum { MAX_PAIRS = 4, MAX_LEN = 4200, MAX_SALT = 200 };
  uint8_t *blocks = malloc(2 * MAX_PAIRS * MAX_LEN + 3), *msg = malloc(MAX_LEN + MAX_SALT);
  uint8_t salt[MAX_SALT], out[2 * MAX_PAIRS * 40], want[32];
  if (blocks == NULL || msg == NULL) return 2;
  uint32_t x = 12345;
  long checked = 0;
  for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
    for (size_t si = 0; si < sizeof salts / sizeof salts[0]; si++) {
      for (int salt_first = 0; salt_first <= 1; salt_first++) {
        size_t len = lens[li], salt_len = salts[si], pairs = 1 + (li + si) % MAX_PAIRS;
        size_t at = (li + si) % 3, stride = 32 + (si % 2) * 8; /* odd offsets, digests apart */
        for (size_t i = 0; i < 2 * pairs * len + at; i++) blocks[i] = (uint8_t)((x = x * 1103515245 + 12345) >> 16);
        for (size_t i = 0; i < salt_len; i++) salt[i] = (uint8_t)((x = x * 1103515245 + 12345) >> 16);
        jv_sha256_x2_run(salt, salt_len, salt_first, blocks + at, len, pairs, out, stride);
        for (size_t b = 0; b < 2 * pairs; b++) {
          const uint8_t *block = blocks + at + b * len;
          if (salt_first) {
            memcpy(msg, salt, salt_len);
            memcpy(msg + salt_len, block, len);
          } else {
            memcpy(msg, block, len);
            memcpy(msg + len, salt, salt_len);
          }
          sha256(msg, len + salt_len, want);
          if (memcmp(out + b * stride, want, 32) != 0) {
            printf("mismatch: block %zu of %zu, %zu bytes, salt of %zu bytes %s\n", b, 2 * pairs,
                   len, salt_len, salt_first ? "before" : "after");
            return 1;
          }
          checked++;
        }
      }
    }
  }
  printf("two streams: %ld digests\n", checked);
  return 0;
}
