package org.jverity.ddi;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Values a build derives from its seed rather than draws at random, so that two builds of one input
 * with one seed are byte-identical: HMAC-SHA256 keyed with the seed over what the value is for, as
 * systemd-repart 254+ derives its salts and UUIDs. Stateless.
 */
final class Derivation {
  private Derivation() {}

  /** HMAC-SHA256(seed, purpose). */
  static byte[] hmac(byte[] seed, String purpose) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(seed.length == 0 ? new byte[1] : seed, "HmacSHA256"));
      return mac.doFinal(purpose.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256: " + e.getMessage(), e);
    }
  }

  /**
   * A version 4 UUID (random-looking, as systemd's {@code id128_make_v4_uuid}) for {@code purpose}.
   */
  static UUID uuid(byte[] seed, String purpose) {
    return v4(Arrays.copyOf(hmac(seed, purpose), 16));
  }

  /** {@code b}'s 16 bytes with the version 4 and RFC 4122 variant bits set. */
  static UUID v4(byte[] b) {
    b[6] = (byte) ((b[6] & 0x0f) | 0x40);
    b[8] = (byte) ((b[8] & 0x3f) | 0x80);
    ByteBuffer be = ByteBuffer.wrap(b);
    return new UUID(be.getLong(), be.getLong());
  }
}
