package org.jverity.ddi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Values a build derives from its seed rather than draws at random, so that two builds of one input
 * with one seed are byte-identical, as systemd-repart 255+ derives them (repart.c's {@code
 * derive_uuid}): HMAC-SHA256 keyed with the seed's 16 bytes over a token, the first 16 bytes made a
 * version 4 UUID. The tokens are repart's: {@code "disk-uuid"}, {@code "verity-uuid"} (the
 * superblock's), {@code "verity-salt"} (all 32 bytes are the salt), and a partition's type UUID
 * (with a counter after the first partition of that type). Stateless.
 */
final class Derivation {
  private Derivation() {}

  /** HMAC-SHA256(seed, message). */
  static byte[] hmac(byte[] seed, byte[] message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(seed, "HmacSHA256"));
      return mac.doFinal(message);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256: " + e.getMessage(), e);
    }
  }

  /** The 32 bytes of HMAC-SHA256(seed, token). */
  static byte[] hmac(byte[] seed, String token) {
    return hmac(seed, token.getBytes(StandardCharsets.US_ASCII));
  }

  /** repart's {@code derive_uuid(seed, token)}. */
  static UUID uuid(byte[] seed, String token) {
    return v4(Arrays.copyOf(hmac(seed, token), 16));
  }

  /** The UUID of the first partition of {@code type}: the HMAC over the type UUID's 16 bytes. */
  static UUID partitionUuid(byte[] seed, UUID type) {
    return partitionUuid(seed, type, 0);
  }

  /**
   * The UUID of the partition of {@code type} that {@code earlier} partitions of that type precede
   * in the table: for the first, the HMAC over the type UUID's 16 bytes; for a later one, over them
   * followed by {@code earlier} as a little-endian 64-bit number (repart.c's {@code
   * partition_acquire_uuid}).
   */
  static UUID partitionUuid(byte[] seed, UUID type, long earlier) {
    ByteBuffer message =
        ByteBuffer.allocate(earlier == 0 ? 16 : 24)
            .putLong(type.getMostSignificantBits())
            .putLong(type.getLeastSignificantBits());
    if (earlier > 0) {
      message.order(ByteOrder.LITTLE_ENDIAN).putLong(earlier);
    }
    return v4(Arrays.copyOf(hmac(seed, message.array()), 16));
  }

  /** {@code b}'s 16 bytes with the version 4 and RFC 4122 variant bits set. */
  static UUID v4(byte[] b) {
    b[6] = (byte) ((b[6] & 0x0f) | 0x40);
    b[8] = (byte) ((b[8] & 0x3f) | 0x80);
    ByteBuffer be = ByteBuffer.wrap(b);
    return new UUID(be.getLong(), be.getLong());
  }
}
