package org.jverity.avb.tool;

import java.security.SecureRandom;
import org.jverity.format.Hex;

/** The salt of a footer command, as avbtool chooses it. */
final class Salt {
  private Salt() {}

  /**
   * {@code --salt HEX} when given (empty when given empty); else none for a persistent digest, else
   * {@code digestSize} random bytes (avbtool reads /dev/urandom).
   */
  static byte[] of(String hex, int digestSize, boolean persistentDigest) {
    if (hex != null) {
      return Hex.parse("--salt", hex);
    }
    if (persistentDigest) {
      return new byte[0];
    }
    byte[] salt = new byte[digestSize];
    new SecureRandom().nextBytes(salt);
    return salt;
  }
}
