package org.jverity.avb.verify;

import org.jverity.avb.AvbPublicKey;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.VbmetaHeader;
import org.jverity.avb.VbmetaImage;

/**
 * The checks on a vbmeta that come before its descriptors, each refusal one line naming the image:
 * its signature with the key it embeds, that key against the one trusted, and the flags a locked
 * device refuses. Stateless.
 */
final class VbmetaTrust {
  /** How VbmetaImage's own messages start; replaced by one naming the image. */
  private static final String PREFIX = "vbmeta: ";

  private VbmetaTrust() {}

  /**
   * Recomputes the hash and checks the signature with the embedded key.
   *
   * @return whether the vbmeta is signed (false: algorithm NONE)
   * @throws AvbVerificationException on a hash or signature mismatch, naming {@code image}
   */
  static boolean verifySignature(String image, VbmetaImage vbmeta) throws AvbVerificationException {
    try {
      return vbmeta.verifySignature();
    } catch (AvbVerificationException e) {
      String why = e.getMessage();
      if (why.startsWith(PREFIX)) {
        why = why.substring(PREFIX.length());
      }
      throw new AvbVerificationException(
          "vbmeta of " + image + ": " + why + " (a device refuses it)");
    }
  }

  /** "vbmeta of IMG is signed by key sha1 X, not the OPTION given (sha1 Y)". */
  static AvbVerificationException untrustedKey(
      String image, byte[] embedded, byte[] trusted, String option) {
    return new AvbVerificationException(
        "vbmeta of "
            + image
            + " is signed by key sha1 "
            + AvbPublicKey.sha1(embedded)
            + ", not the "
            + option
            + " given (sha1 "
            + AvbPublicKey.sha1(trusted)
            + ")");
  }

  /** An unsigned vbmeta where a signature is required. */
  static AvbVerificationException unsigned(String image, String howToAccept) {
    return new AvbVerificationException(
        "vbmeta of "
            + image
            + " is not signed (algorithm NONE): a locked device refuses it ("
            + howToAccept
            + ")");
  }

  /**
   * Refuses a top-level vbmeta with HASHTREE_DISABLED or VERIFICATION_DISABLED set: a locked device
   * does not boot it, and an unlocked one checks nothing of what it describes.
   */
  static void requireVerificationEnabled(String image, VbmetaHeader header)
      throws AvbVerificationException {
    int flags = header.flags();
    if ((flags & VbmetaHeader.FLAG_VERIFICATION_DISABLED) != 0) {
      throw new AvbVerificationException(
          "vbmeta of "
              + image
              + " has VERIFICATION_DISABLED set (flags "
              + flags
              + "): a device checks none of its descriptors, and a locked one refuses it");
    }
    if ((flags & VbmetaHeader.FLAG_HASHTREE_DISABLED) != 0) {
      throw new AvbVerificationException(
          "vbmeta of "
              + image
              + " has HASHTREE_DISABLED set (flags "
              + flags
              + "): a device mounts its partitions without dm-verity, and a locked one refuses it");
    }
  }
}
