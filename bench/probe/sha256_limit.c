/*
 * sha256_limit: this CPU's SHA-256 limit on dm-verity's pattern, H(salt || 4 KiB block) with a
 * 32-byte salt, one process: "one" hashes a block at a time with libcrypto (what veritysetup and
 * fsverity do), "two" two blocks at a time with jverity's SHA-NI loop (sha256_x2.c). Every digest
 * of a first pass is compared with libcrypto's before anything is timed. Prints MB/s of block data.
 * Built and run by bench/sha256-limit.sh.
 */
#define _POSIX_C_SOURCE 199309L
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sha256_x2.h"

enum { BLOCK = 4096, SALT = 32, BLOCKS = 1024 }; /* 4 MiB of blocks: in L2/L3 and the page cache */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void one(const unsigned char *salt, const unsigned char *b, unsigned char *out) {
  SHA256_CTX salted, c;
  SHA256_Init(&salted);
  SHA256_Update(&salted, salt, SALT);
  for (int i = 0; i < BLOCKS; i++) {
    c = salted;
    SHA256_Update(&c, b + (size_t)i * BLOCK, BLOCK);
    SHA256_Final(out + 32 * i, &c);
  }
}

static void two(const unsigned char *salt, const unsigned char *b, unsigned char *out) {
  jv_sha256_x2_run(salt, SALT, 1, b, BLOCK, BLOCKS / 2, out, 32);
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "one") && strcmp(argv[1], "two"))) {
    fprintf(stderr, "usage: sha256_limit one|two SECONDS\n");
    return 2;
  }
  int pair = strcmp(argv[1], "two") == 0;
  if (pair && !jv_sha256_x2_available()) {
    fprintf(stderr, "sha256_limit: no SHA-NI on this CPU (or JVERITY_SHA256_X2=off)\n");
    return 3;
  }
  double seconds = atof(argv[2]);
  unsigned char salt[SALT], *blocks = malloc((size_t)BLOCK * BLOCKS), *out = malloc(32 * BLOCKS),
                            *want = malloc(32 * BLOCKS);
  if (blocks == NULL || out == NULL || want == NULL) return 1;
  for (int i = 0; i < SALT; i++) salt[i] = (unsigned char)(i * 13 + 1);
  for (size_t i = 0; i < (size_t)BLOCK * BLOCKS; i++) blocks[i] = (unsigned char)(i * 31 + (i >> 12));
  one(salt, blocks, want);
  (pair ? two : one)(salt, blocks, out);
  if (memcmp(out, want, 32 * BLOCKS) != 0) {
    fprintf(stderr, "sha256_limit: the %s-stream digests differ from libcrypto's\n", argv[1]);
    return 4;
  }
  long passes = 0;
  double start = now(), t;
  do {
    (pair ? two : one)(salt, blocks, out);
    passes++;
  } while ((t = now()) - start < seconds);
  printf("%.0f\n", (double)passes * BLOCK * BLOCKS / (t - start) / 1e6);
  return 0;
}
