package org.jverity.avb.hashtree;

import java.security.MessageDigest;
import org.jverity.avb.AvbFooter;
import org.jverity.avb.VbmetaImage;
import org.jverity.fec.FecLayout;
import org.jverity.fec.ReedSolomon;
import org.jverity.format.HashFormat;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.hash.HashAlgorithm;
import org.jverity.tree.MerkleLayout;

/**
 * Where {@code add_hashtree_footer} puts the tree and the FEC of one image (avbtool's {@code
 * calc_hash_level_offsets} and libfec's sizing), computed on the final image size: {@code
 * [image][tree, padded to 4096][FEC parity, padded to 4096]}. Pure arithmetic, immutable.
 *
 * <p>The tree is the dm-verity v1 tree without superblock, laid out on one device with {@code
 * --data-blocks imageSize/blockSize --hash-offset imageSize}; the FEC is veritysetup's
 * single-device FEC with {@code --fec-offset fecOffset}, over {@code [0, fecOffset)} (data, tree
 * and its padding) in blocks of {@code blockSize}. At 4096-byte blocks that is libfec's encoding
 * byte for byte; below 4096 libfec (avbtool) would still cut 4096-byte blocks ({@code FEC_BLOCKSIZE
 * 4096} in libfec's fec_private.h), which is not what the kernel reads, so the kernel's layout is
 * the one written (docs/avb.md lists it as a difference from avbtool). Where the kernel's unit
 * comes from: libfs_avb's table (and avbtool's own {@code dm=} cmdline, {@code fec_offset //
 * data_block_size}) gives {@code fec_blocks = fec_start = fec_offset / data_block_size};
 * dm-verity-fec.c counts both in data blocks ({@code verity_fec_ctr}: {@code f->rounds = f->blocks
 * / rsn} rounded up, the parity at {@code f->start << (data_dev_block_bits - SECTOR_SHIFT)}) and
 * interleaves in them ({@code fec_interleave}: {@code offset + mod * (rounds <<
 * data_dev_block_bits)}); a 4096-byte round does not decode there.
 *
 * <p>avbtool computes the level sizes on the image rounded to the block size but hashes it rounded
 * to 4096 (a crash below 4096); here the caller pads the image (to the block size at least, to 4096
 * as avbtool lays it out) and the geometry is computed on that final size.
 *
 * <p>A geometry is consistent: one built from a hashtree descriptor whose tree or FEC size is not
 * the one its image size, block size, algorithm, roots and FEC offset give is refused. (avbtool's
 * FEC below 4096-byte blocks, cut in 4096-byte blocks by libfec, is such a case.)
 *
 * @param imageSize bytes of data covered, a multiple of {@code blockSize}; the tree starts here
 * @param blockSize data and hash block size, a power of two in [512, 512 KiB]
 * @param algorithm the tree's hash
 * @param treeSize bytes of tree (avbtool's {@code tree_size}, unpadded)
 * @param fecRoots parity bytes per codeword, 2..24, or 0 for no FEC
 * @param fecOffset where the parity starts, 0 without FEC (as in the descriptor)
 * @param fecSize bytes of parity (the descriptor's {@code fec_size}: libfec's header excluded), 0
 *     without FEC
 */
public record AvbTreeGeometry(
    long imageSize,
    int blockSize,
    HashAlgorithm algorithm,
    long treeSize,
    int fecRoots,
    long fecOffset,
    long fecSize) {

  /** avbtool pads the tree and the FEC to its image block size, always 4096. */
  public static final int PAD = 4096;

  /** libfec's FEC block size, and the size of the header {@code fec --encode} appends. */
  public static final int FEC_BLOCK = 4096;

  /** avbtool's {@code MAX_VBMETA_SIZE}: what {@code --calc_max_image_size} reserves for vbmeta. */
  public static final int MAX_VBMETA_SIZE = VbmetaImage.MAX_SIZE;

  /** avbtool's {@code MAX_FOOTER_SIZE}: the last block, which holds the footer. */
  public static final int MAX_FOOTER_SIZE = AvbFooter.BLOCK;

  public AvbTreeGeometry {
    VerityParams.checkBlockSize("block size", blockSize);
    if (algorithm == null) {
      throw new VerityParameterException("hash algorithm: none given");
    }
    if (imageSize < 0 || imageSize % blockSize != 0) {
      throw notPadded(imageSize, blockSize);
    }
    checkRoots(fecRoots);
    if (treeSize < 0 || fecOffset < 0 || fecSize < 0) {
      throw new VerityParameterException(
          "tree size "
              + treeSize
              + ", FEC offset "
              + fecOffset
              + ", FEC size "
              + fecSize
              + " (expected: non-negative)");
    }
    long tree = treeSize(imageSize, blockSize, algorithm);
    if (treeSize != tree) {
      throw new VerityParameterException(
          "tree size: "
              + treeSize
              + " (expected: "
              + tree
              + " for "
              + imageSize
              + " bytes in "
              + blockSize
              + "-byte blocks of "
              + algorithm
              + ")");
    }
    if (fecRoots > 0 && imageSize > 0) {
      if (fecOffset < imageSize + treeSize) {
        throw new VerityParameterException(
            "FEC offset: "
                + fecOffset
                + " (expected: after the tree, which ends at byte "
                + (imageSize + treeSize)
                + ")");
      }
      long parity = fecLayout(imageSize, blockSize, algorithm, fecRoots, fecOffset).paritySize();
      if (fecSize != parity) {
        throw new VerityParameterException(
            "FEC size: "
                + fecSize
                + " (expected: "
                + parity
                + " for "
                + fecRoots
                + " roots over "
                + fecOffset
                + " bytes in "
                + blockSize
                + "-byte blocks)");
      }
    }
  }

  /**
   * The geometry of an image of {@code imageSize} bytes (already padded to the block size).
   *
   * @param fecRoots 0 for no FEC, else 2..24
   */
  public static AvbTreeGeometry of(
      long imageSize, int blockSize, HashAlgorithm algorithm, int fecRoots) {
    long tree = treeSize(imageSize, blockSize, algorithm);
    if (imageSize % blockSize != 0) {
      throw notPadded(imageSize, blockSize);
    }
    checkRoots(fecRoots);
    long fecOffset = 0;
    long fecSize = 0;
    if (fecRoots > 0) {
      fecOffset = imageSize + roundUp(tree, PAD);
      fecSize =
          imageSize == 0
              ? 0
              : fecLayout(imageSize, blockSize, algorithm, fecRoots, fecOffset).paritySize();
    }
    return new AvbTreeGeometry(imageSize, blockSize, algorithm, tree, fecRoots, fecOffset, fecSize);
  }

  /**
   * avbtool's {@code calc_hash_level_offsets} tree size: while the level is over one block, {@code
   * round_up(ceil(size / bs) × slot, bs)}, slot the digest size rounded up to a power of two. 0 for
   * an image of at most one block (the root is then the digest of block 0, or of the salt alone).
   */
  public static long treeSize(long imageSize, int blockSize, HashAlgorithm algorithm) {
    if (imageSize < 0) {
      throw new VerityParameterException("image size: " + imageSize + " (expected: >= 0)");
    }
    long blocks =
        Math.ceilDiv(imageSize, (long) VerityParams.checkBlockSize("block size", blockSize));
    if (blocks <= 1) {
      return 0;
    }
    return MerkleLayout.dmVerity(params(blocks, blockSize, algorithm, new byte[0], 0)).treeSize();
  }

  /**
   * Bytes of parity over {@code coveredSize} bytes in libfec's 4096-byte blocks, as the descriptor
   * records it: {@code ceil(ceil(covered / 4096) / (255 − roots)) × roots × 4096}. {@code fec
   * --print-fec-size} says 4096 more (its header): {@link #printFecSize}.
   */
  public static long fecSize(long coveredSize, int roots) {
    return fecSize(coveredSize, FEC_BLOCK, roots);
  }

  /** As {@link #fecSize(long, int)} in blocks of {@code blockSize} (dm-verity's FEC block). */
  public static long fecSize(long coveredSize, int blockSize, int roots) {
    if (roots == 0) {
      throw new VerityParameterException(
          "FEC roots: 0 (expected: " + ReedSolomon.ROOTS_RANGE + ")");
    }
    checkRoots(roots);
    if (coveredSize < 0) {
      throw new VerityParameterException("FEC covered size: " + coveredSize + " (expected: >= 0)");
    }
    long blocks = Math.ceilDiv(coveredSize, (long) blockSize);
    return blocks == 0 ? 0 : new FecLayout(blockSize, roots, blocks, 0, 0, 0).paritySize();
  }

  /**
   * libfec's {@code fec_ecc_get_size}, what {@code fec --print-fec-size} prints and avbtool's
   * {@code calc_fec_data_size} returns: the parity plus the 4096-byte header {@code fec --encode}
   * writes after it (avbtool keeps only the parity).
   */
  public static long printFecSize(long fileSize, int roots) {
    return fecSize(fileSize, roots) + FEC_BLOCK;
  }

  /**
   * avbtool's {@code add_hashtree_footer --calc_max_image_size}: {@code P − tree(P) − fec(P) − 64
   * KiB − 4 KiB}, the tree and the FEC ({@link #printFecSize}, header included) sized on the
   * partition rather than the image, so the figure is conservative; neither without a hashtree.
   * Never below 0 (avbtool would print a negative size).
   *
   * @param fecRoots 0 without FEC ({@code --do_not_generate_fec})
   */
  public static long maxImageSize(
      long partitionSize,
      int blockSize,
      HashAlgorithm algorithm,
      int fecRoots,
      boolean noHashtree) {
    if (partitionSize <= 0) {
      return 0; // avbtool: no partition size, no maximum
    }
    checkRoots(fecRoots);
    long metadata = MAX_VBMETA_SIZE + MAX_FOOTER_SIZE;
    if (!noHashtree) {
      metadata += treeSize(partitionSize, blockSize, algorithm);
      if (fecRoots > 0) {
        metadata += printFecSize(partitionSize, fecRoots);
      }
    }
    return Math.max(0, partitionSize - metadata);
  }

  /** Where the tree ends with its padding: {@code imageSize + round_up(treeSize, 4096)}. */
  public long treeEnd() {
    return imageSize + roundUp(treeSize, PAD);
  }

  /** Where the hashtree area ends: after the FEC and its padding, else {@link #treeEnd}. */
  public long end() {
    return fecRoots > 0 && fecSize > 0 ? fecOffset + roundUp(fecSize, PAD) : treeEnd();
  }

  /** Data blocks the tree covers. */
  public long dataBlocks() {
    return imageSize / blockSize;
  }

  /**
   * The VerityParams of the same tree: format 1, no superblock, {@code imageSize / blockSize} data
   * blocks, the tree at {@code treeOffset} of the same device (avbtool: {@code imageSize}).
   *
   * @throws VerityParameterException for an empty image (dm-verity has no empty tree)
   */
  public VerityParams verityParams(byte[] salt, long treeOffset) {
    if (imageSize == 0) {
      throw new VerityParameterException(
          "image size: 0 (expected: at least one block; dm-verity has no empty tree)");
    }
    return params(dataBlocks(), blockSize, algorithm, salt, treeOffset);
  }

  /**
   * The FEC layout of this geometry for a tree at {@code treeOffset} (FEC and data required).
   *
   * @throws VerityParameterException when a tree elsewhere than at {@code imageSize} changes what
   *     the parity covers, so that it no longer has {@code fecSize} bytes
   */
  public FecLayout fecLayout(long treeOffset) {
    if (fecRoots == 0 || imageSize == 0) {
      throw new IllegalStateException("no FEC in this geometry: " + this);
    }
    FecLayout layout =
        FecLayout.of(verityParams(new byte[0], treeOffset), fecRoots, fecOffset, true, 0);
    if (layout.paritySize() != fecSize) {
      throw new VerityParameterException(
          "tree offset: "
              + treeOffset
              + " (expected: "
              + imageSize
              + "; FEC over a tree there has "
              + layout.paritySize()
              + " bytes of parity, not "
              + fecSize
              + ")");
    }
    return layout;
  }

  /** The root digest of an empty image: {@code H(salt)} (avbroot; avbtool crashes). */
  byte[] emptyRoot(byte[] salt) {
    MessageDigest d = algorithm.newDigest();
    d.update(salt);
    return d.digest();
  }

  private static FecLayout fecLayout(
      long imageSize, int blockSize, HashAlgorithm algorithm, int roots, long fecOffset) {
    VerityParams p = params(imageSize / blockSize, blockSize, algorithm, new byte[0], imageSize);
    return FecLayout.of(p, roots, fecOffset, true, 0);
  }

  private static VerityParams params(
      long dataBlocks, int blockSize, HashAlgorithm algorithm, byte[] salt, long treeOffset) {
    return VerityParams.builder()
        .hashAlgorithm(algorithm)
        .hashFormat(HashFormat.NORMAL)
        .blockSize(blockSize)
        .dataBlocks(dataBlocks)
        .hashOffset(treeOffset)
        .salt(salt)
        .superblock(false)
        .build();
  }

  private static VerityParameterException notPadded(long imageSize, int blockSize) {
    return new VerityParameterException(
        "image size: "
            + imageSize
            + " (expected: a non-negative multiple of the block size "
            + blockSize
            + "; the caller pads the image)");
  }

  private static void checkRoots(int roots) {
    if (roots != 0 && !ReedSolomon.validRoots(roots)) {
      throw new VerityParameterException(
          "FEC roots: " + roots + " (expected: 0 for none, or " + ReedSolomon.ROOTS_RANGE + ")");
    }
  }

  /**
   * {@code n} rounded up to a multiple of {@code multiple}, as avbtool rounds every size: the one
   * copy of it (the footer commands' sizes too); a size past {@link Long#MAX_VALUE} throws.
   */
  public static long roundUp(long n, long multiple) {
    long r = n % multiple;
    return r == 0 ? n : Math.addExact(n, multiple - r);
  }
}
