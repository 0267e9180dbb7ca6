/* SHA-256 of two equal-length salted blocks at once (sha256_x2.c). */
#ifndef JVERITY_SHA256_X2_H
#define JVERITY_SHA256_X2_H

#include <stddef.h>
#include <stdint.h>

/* Whether this CPU has SHA-NI (x86-64) or the ARMv8 SHA-2 instructions (arm64), and
 * JVERITY_SHA256_X2 is not "off". */
int jv_sha256_x2_available(void);

/*
 * The digests of 2 * pairs consecutive blocks of block_size bytes, each hashed with the salt
 * before it (salt_first) or after it, written `stride` bytes apart from `out`, in order.
 * Only when jv_sha256_x2_available().
 */
void jv_sha256_x2_run(const uint8_t *salt, size_t salt_len, int salt_first, const uint8_t *blocks,
                      size_t block_size, size_t pairs, uint8_t *out, size_t stride);

/*
 * The digests of two blocks of block_size bytes that lie apart (a hash block and a data block of a
 * cold verified read), salted as jv_sha256_x2_run salts them. Only when jv_sha256_x2_available().
 */
void jv_sha256_x2_two(const uint8_t *salt, size_t salt_len, int salt_first, const uint8_t *b0,
                      const uint8_t *b1, size_t block_size, uint8_t *out0, uint8_t *out1);

#endif
