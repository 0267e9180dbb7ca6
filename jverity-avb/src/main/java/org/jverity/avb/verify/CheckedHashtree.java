package org.jverity.avb.verify;

import java.util.Set;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.hashtree.AvbTreeGeometry;
import org.jverity.fec.ReedSolomon;
import org.jverity.format.VerityParams;
import org.jverity.hash.HashAlgorithm;

/**
 * A hashtree descriptor whose numbers were found consistent with each other and with the image that
 * holds the tree: the algorithm one libavb takes, one block size dm-verity accepts, the tree right
 * after the data and as large as the data needs, the FEC right after the tree, both before the
 * vbmeta. Only such a descriptor is handed to the tree check or to dm-verity's parameters.
 *
 * @param descriptor the descriptor as parsed
 * @param geometry the tree and FEC it describes (no FEC when {@code fec_size} is 0, as libfs_avb
 *     reads it, whatever {@code fec_num_roots} says)
 * @param treePresent false when the descriptor records no tree bytes although the data needs some
 *     (avbtool's {@code --no_hashtree}): nothing on the image to check the data against
 */
record CheckedHashtree(
    HashtreeDescriptor descriptor, AvbTreeGeometry geometry, boolean treePresent) {

  /** The digests libavb takes for a hashtree root (avb_slot_verify.c), with their sizes. */
  private static final Set<String> ALGORITHMS = Set.of("sha1", "sha256", "sha512");

  /** RS(255, 255 - roots): the parity lengths libfec and dm-verity's FEC take. */

  /**
   * Checks {@code d} against an image whose tree and FEC must end by {@code metadataStart} (the
   * vbmeta's offset when there is a footer, else the image's size).
   *
   * @param where names the descriptor in messages: "system.img: hashtree descriptor (system)"
   * @throws AvbVerificationException saying which number is wrong and what it should be
   */
  static CheckedHashtree check(String where, HashtreeDescriptor d, long metadataStart)
      throws AvbVerificationException {
    if (d.dmVerityVersion() != 1) {
      throw refuse(
          where,
          "dm_verity_version " + d.dmVerityVersion() + " (expected: 1, what avbtool writes)");
    }
    HashAlgorithm algorithm = algorithm(where, d.hashAlgorithm());
    int digestSize = algorithm.digestSize();
    if (d.rootDigest().length == 0) {
      throw refuse(
          where,
          "no root digest (a persistent digest, avb.persistent_digest."
              + d.partitionName()
              + ", held by the device, not by the image)");
    }
    if (d.rootDigest().length != digestSize) {
      throw refuse(
          where,
          "root digest of "
              + d.rootDigest().length
              + " bytes (expected: "
              + digestSize
              + ", a "
              + algorithm
              + " digest)");
    }
    int bs = d.dataBlockSize();
    if (d.hashBlockSize() != bs) {
      throw refuse(
          where,
          "hash_block_size "
              + d.hashBlockSize()
              + " (expected: the data_block_size, "
              + bs
              + ", as avbtool writes)");
    }
    if (!VerityParams.validBlockSize(Integer.toUnsignedLong(bs))) {
      throw refuse(
          where,
          "data_block_size "
              + Integer.toUnsignedString(bs)
              + " (expected: "
              + VerityParams.BLOCK_SIZE_RANGE
              + ", as veritysetup takes; the kernel also wants at most its page size)");
    }
    if (bs < 2 * digestSize) {
      throw refuse(
          where,
          "data_block_size " + bs + " (expected: room for two " + algorithm + " digests at least)");
    }
    long imageSize = d.imageSize();
    if (imageSize <= 0 || imageSize % bs != 0) {
      throw refuse(
          where,
          "image_size "
              + imageSize
              + " (expected: a positive multiple of the "
              + bs
              + "-byte block)");
    }
    if (d.treeOffset() != imageSize) {
      throw refuse(
          where,
          "tree_offset "
              + d.treeOffset()
              + " (expected: image_size, "
              + imageSize
              + ", where avbtool puts the tree)");
    }
    boolean fec = d.fecSize() > 0;
    if (fec && !ReedSolomon.validRoots(d.fecNumRoots())) {
      throw refuse(
          where,
          "fec_num_roots " + d.fecNumRoots() + " (expected: " + ReedSolomon.ROOTS_RANGE + ")");
    }
    AvbTreeGeometry geometry =
        AvbTreeGeometry.of(imageSize, bs, algorithm, fec ? d.fecNumRoots() : 0);
    boolean present = !(d.treeSize() == 0 && geometry.treeSize() > 0);
    if (present && d.treeSize() != geometry.treeSize()) {
      throw refuse(
          where,
          "tree_size "
              + d.treeSize()
              + " (expected: "
              + geometry.treeSize()
              + ", a "
              + algorithm
              + " tree over "
              + imageSize
              + " bytes in "
              + bs
              + "-byte blocks)");
    }
    long treeEnd = d.treeOffset() + d.treeSize();
    if (treeEnd > metadataStart) {
      throw refuse(
          where,
          "tree ["
              + d.treeOffset()
              + ", "
              + treeEnd
              + ") (expected: before the vbmeta or the image's end, "
              + metadataStart
              + ")");
    }
    if (fec) {
      if (d.fecOffset() != geometry.fecOffset()) {
        throw refuse(
            where,
            "fec_offset "
                + d.fecOffset()
                + " (expected: "
                + geometry.fecOffset()
                + ", right after the tree)");
      }
      if (d.fecSize() != geometry.fecSize()) {
        throw refuse(
            where,
            "fec_size "
                + d.fecSize()
                + " (expected: "
                + geometry.fecSize()
                + ", "
                + d.fecNumRoots()
                + " roots over "
                + d.fecOffset()
                + " bytes)");
      }
      long fecEnd = d.fecOffset() + d.fecSize();
      if (fecEnd > metadataStart) {
        throw refuse(
            where,
            "FEC ["
                + d.fecOffset()
                + ", "
                + fecEnd
                + ") (expected: before the vbmeta or the image's end, "
                + metadataStart
                + ")");
      }
    }
    return new CheckedHashtree(d, geometry, present);
  }

  /** The tree's algorithm when libavb takes it for a hashtree: sha1, sha256 or sha512. */
  static HashAlgorithm algorithm(String where, String name) throws AvbVerificationException {
    if (!ALGORITHMS.contains(name)) {
      throw refuse(
          where,
          "hash algorithm "
              + name
              + " (expected: sha1, sha256 or sha512, the ones libavb takes for a hashtree)");
    }
    return HashAlgorithm.lookup(name).orElseThrow(); // built in
  }

  private static AvbVerificationException refuse(String where, String what) {
    return new AvbVerificationException(where + ": " + what);
  }
}
