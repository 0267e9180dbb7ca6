package org.jverity.avb.tool;

import org.jverity.format.Hex;
import org.jverity.io.KernelRandom;

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
    return KernelRandom.bytes(digestSize);
  }
}
