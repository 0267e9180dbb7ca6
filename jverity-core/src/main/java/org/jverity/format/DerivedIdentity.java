package org.jverity.format;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Salt and UUID derived from a secret seed and an image label, so the same inputs always give the
 * same hash tree (reproducible builds, as systemd-repart does with its seed):
 *
 * <pre>
 * salt = HMAC-SHA256(key = seed, "jverity salt\0" ‖ label)          32 bytes
 * uuid = HMAC-SHA256(key = seed, "jverity uuid\0" ‖ label)[0..16)   with version 4 and variant bits set
 * </pre>
 *
 * Stateless, thread-safe.
 */
public final class DerivedIdentity {
  private DerivedIdentity() {}

  /** A 32-byte salt for {@code label} under {@code seed}. */
  public static byte[] salt(byte[] seed, String label) {
    return hmac(seed, "jverity salt\0" + label);
  }

  /** A version-4-shaped UUID for {@code label} under {@code seed}. */
  public static UUID uuid(byte[] seed, String label) {
    return version4(hmac(seed, "jverity uuid\0" + label));
  }

  /**
   * The version-4 UUID of {@code bytes}' first 16 (its version and variant bits set): random bytes
   * make a random UUID, as {@link UUID#randomUUID()} does.
   */
  public static UUID version4(byte[] bytes) {
    byte[] h = bytes.clone();
    h[6] = (byte) ((h[6] & 0x0f) | 0x40); // version 4
    h[8] = (byte) ((h[8] & 0x3f) | 0x80); // RFC 4122 variant
    long msb = 0;
    long lsb = 0;
    for (int i = 0; i < 8; i++) {
      msb = (msb << 8) | (h[i] & 0xff);
      lsb = (lsb << 8) | (h[8 + i] & 0xff);
    }
    return new UUID(msb, lsb);
  }

  private static byte[] hmac(byte[] seed, String message) {
    if (seed.length == 0) {
      throw new VerityParameterException("seed: empty");
    }
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(seed, "HmacSHA256"));
      return mac.doFinal(message.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("JDK without HmacSHA256", e); // every JDK has it
    }
  }
}
