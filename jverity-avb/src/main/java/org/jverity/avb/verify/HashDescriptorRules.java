package org.jverity.avb.verify;

import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.HashDescriptor;
import org.jverity.hash.HashAlgorithm;

/**
 * What libavb requires of a hash descriptor before it hashes anything ({@code
 * load_and_verify_hash_partition}): sha256 or sha512 (avbtool builds any hashlib name, sha1
 * included, which a device then refuses), and a digest of that algorithm's size in the descriptor
 * (none would mean a persistent digest, kept by the device, which an image cannot show).
 */
final class HashDescriptorRules {
  private HashDescriptorRules() {}

  /**
   * The descriptor's algorithm, when libavb takes it and the digest fits it.
   *
   * @param where names the descriptor: "boot: hash descriptor in vbmeta.img"
   */
  static HashAlgorithm check(String where, HashDescriptor d) throws AvbVerificationException {
    String alg = d.hashAlgorithm();
    if (!alg.equals("sha256") && !alg.equals("sha512")) {
      throw new AvbVerificationException(
          where
              + " uses "
              + alg
              + " (expected: sha256 or sha512; a device refuses it: 'Unsupported hash algorithm')");
    }
    HashAlgorithm algorithm = HashAlgorithm.lookup(alg).orElseThrow(); // built in
    int length = d.digest().length;
    if (length == 0) {
      throw new AvbVerificationException(
          where
              + " has no digest (a persistent digest, avb.persistent_digest."
              + d.partitionName()
              + ", held by the device, not by an image)");
    }
    if (length != algorithm.digestSize()) {
      throw new AvbVerificationException(
          where
              + " has a digest of "
              + length
              + " bytes (expected: "
              + algorithm.digestSize()
              + "; a device refuses it: 'Digest in descriptor not of expected size')");
    }
    return algorithm;
  }
}
