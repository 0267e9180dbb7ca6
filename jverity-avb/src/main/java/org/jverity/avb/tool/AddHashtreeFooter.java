package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jverity.avb.AvbFooter;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.hashtree.AvbHashtree;
import org.jverity.avb.hashtree.AvbTreeGeometry;
import org.jverity.fec.ReedSolomon;
import org.jverity.format.UnsupportedHashAlgorithmException;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.AtomicOutput;
import org.jverity.tree.ProgressListener;

/**
 * avbtool's {@code add_hashtree_footer}: appends to {@code image} its hash tree, the FEC over data
 * and tree, a vbmeta blob with the hashtree descriptor, and the footer, the image ending at {@code
 * partitionSize} (or one block past the vbmeta when 0). Byte for byte avbtool's output for the same
 * options and salt; idempotent (an existing footer is replaced: the image is first cut back to its
 * original size). Unlike avbtool, FEC is built in and a failure leaves the image exactly as it was,
 * its old footer included.
 *
 * @param image the partition image, changed in place
 * @param partitionSize the partition's size, a multiple of 4096; 0 for no padding
 * @param partitionName the descriptor's partition name ("" by default)
 * @param hashAlgorithm the tree's hash, as avbtool names it (sha1 by default)
 * @param salt hex, or null for a random salt as long as a digest
 * @param blockSize data and hash block size (4096 by default)
 * @param generateFec whether to append FEC (avbtool's default; {@code --do_not_generate_fec})
 * @param fecNumRoots parity bytes per codeword, 2 to 24 (2 by default)
 * @param noHashtree record the descriptor, but append no tree and no FEC
 * @param checkAtMostOnce the descriptor's CHECK_AT_MOST_ONCE flag (needs libavb 1.1)
 * @param setupAsRootfsFromKernel add the dm-verity kernel-cmdline descriptors for this tree
 * @param usePersistentDigest store no root digest (the device keeps it); no random salt
 * @param doNotUseAb the descriptor's DO_NOT_USE_AB flag
 * @param outputVbmetaImage also write the vbmeta blob there, or null
 * @param doNotAppendVbmetaImage append tree and FEC only
 * @param vbmeta the vbmeta's own options
 */
public record AddHashtreeFooter(
    Path image,
    long partitionSize,
    String partitionName,
    String hashAlgorithm,
    String salt,
    int blockSize,
    boolean generateFec,
    int fecNumRoots,
    boolean noHashtree,
    boolean checkAtMostOnce,
    boolean setupAsRootfsFromKernel,
    boolean usePersistentDigest,
    boolean doNotUseAb,
    Path outputVbmetaImage,
    boolean doNotAppendVbmetaImage,
    VbmetaOptions vbmeta) {

  public static final String DEFAULT_HASH = "sha1";
  public static final int DEFAULT_BLOCK_SIZE = 4096;
  public static final int DEFAULT_FEC_ROOTS = 2;

  public AddHashtreeFooter {
    if (partitionName == null) {
      partitionName = "";
    }
    if (hashAlgorithm == null) {
      hashAlgorithm = DEFAULT_HASH;
    }
    if (vbmeta == null) {
      vbmeta = VbmetaOptions.none();
    }
  }

  /** avbtool's defaults, for options given one at a time (a command line's). */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The options one at a time, each starting at avbtool's default: a partition name of "", sha1,
   * 4096-byte blocks, FEC with 2 roots, no vbmeta signature. Not thread-safe.
   */
  public static final class Builder extends FooterBuilder<Builder> {
    private int blockSize = DEFAULT_BLOCK_SIZE;
    private boolean generateFec = true;
    private int fecNumRoots = DEFAULT_FEC_ROOTS;
    private boolean noHashtree;
    private boolean checkAtMostOnce;
    private boolean setupAsRootfsFromKernel;

    private Builder() {
      super(DEFAULT_HASH);
    }

    @Override
    Builder self() {
      return this;
    }

    public Builder blockSize(int blockSize) {
      this.blockSize = blockSize;
      return this;
    }

    public Builder generateFec(boolean generateFec) {
      this.generateFec = generateFec;
      return this;
    }

    public Builder fecNumRoots(int fecNumRoots) {
      this.fecNumRoots = fecNumRoots;
      return this;
    }

    public Builder noHashtree(boolean noHashtree) {
      this.noHashtree = noHashtree;
      return this;
    }

    public Builder checkAtMostOnce(boolean checkAtMostOnce) {
      this.checkAtMostOnce = checkAtMostOnce;
      return this;
    }

    public Builder setupAsRootfsFromKernel(boolean setupAsRootfsFromKernel) {
      this.setupAsRootfsFromKernel = setupAsRootfsFromKernel;
      return this;
    }

    public AddHashtreeFooter build() {
      return new AddHashtreeFooter(
          image,
          partitionSize,
          partitionName,
          hashAlgorithm,
          salt,
          blockSize,
          generateFec,
          fecNumRoots,
          noHashtree,
          checkAtMostOnce,
          setupAsRootfsFromKernel,
          usePersistentDigest,
          doNotUseAb,
          outputVbmetaImage,
          doNotAppendVbmetaImage,
          vbmeta);
    }
  }

  /** What was appended. */
  public record Added(HashtreeDescriptor descriptor, byte[] vbmeta, AvbFooter footer) {}

  /** {@code --print_required_libavb_version}: "1.N" for these options. */
  public String requiredLibavbVersion() {
    return "1." + Math.max(ownMinor(), vbmeta.requiredMinor());
  }

  private int ownMinor() {
    return usePersistentDigest || doNotUseAb || checkAtMostOnce ? 1 : 0;
  }

  /**
   * {@code --calc_max_image_size}: the largest image that fits {@code partitionSize} with its tree,
   * FEC (with libfec's header) and metadata, avbtool's conservative figure (tree and FEC sized for
   * the whole partition); 0 without a partition size.
   */
  public long maxImageSize() {
    return AvbTreeGeometry.maxImageSize(
        partitionSize, blockSize, algorithm(), generateFec ? fecNumRoots : 0, noHashtree);
  }

  /**
   * The bytes {@link #apply} will report to its progress listener, as the image is now (an image
   * with a footer already is counted whole: a little more).
   */
  public long workBytes() throws IOException {
    checkOptions();
    long size =
        AvbTreeGeometry.roundUp(
            AvbTreeGeometry.roundUp(Files.size(image), blockSize), Sizes.IMAGE_BLOCK);
    int roots = generateFec && !noHashtree ? fecNumRoots : 0;
    return AvbHashtree.workBytes(AvbTreeGeometry.of(size, blockSize, algorithm(), roots));
  }

  /** The tree's hash algorithm, refused when unknown. */
  HashAlgorithm algorithm() {
    return HashAlgorithm.lookup(hashAlgorithm)
        .orElseThrow(
            () ->
                new UnsupportedHashAlgorithmException(
                    hashAlgorithm, "--hash_algorithm: " + hashAlgorithm + " (not supported)"));
  }

  private void checkOptions() {
    VerityParams.checkBlockSize("--block_size", blockSize);
    if (generateFec) {
      ReedSolomon.checkRoots("--fec_num_roots", fecNumRoots, VerityParameterException::new);
    }
    if (partitionSize < 0) {
      throw new VerityParameterException(
          "--partition_size: " + partitionSize + " (expected: 0 or more)");
    }
    algorithm();
  }

  /**
   * Appends tree, FEC, vbmeta and footer.
   *
   * @param threads hashing and FEC threads
   * @param progress told of the bytes hashed and encoded
   */
  public Added apply(int threads, ProgressListener progress) throws IOException {
    checkOptions();
    HashAlgorithm alg = algorithm();
    if (partitionSize > 0) {
      Sizes.requireWholeBlocks(partitionSize);
    }
    long fileSize = Files.size(image);
    if (partitionSize == 0 && fileSize % Sizes.IMAGE_BLOCK != 0) {
      throw new VerityParameterException(
          image
              + ": file size "
              + fileSize
              + " (expected: a multiple of the image block size "
              + Sizes.IMAGE_BLOCK
              + " when no --partition_size is given)");
    }
    long original = FooterBlock.existing(image).map(AvbFooter::originalImageSize).orElse(fileSize);
    if (original > fileSize) {
      throw new AvbFormatException(
          image
              + ": footer original image size "
              + original
              + " (expected: at most the file size "
              + fileSize
              + ")");
    }
    long rounded = AvbTreeGeometry.roundUp(original, blockSize);
    long max = maxImageSize();
    if (partitionSize > 0 && rounded > max) {
      throw new PartitionTooSmallException(image.toString(), rounded, max, partitionSize);
    }
    byte[] saltBytes = Salt.of(salt, alg.digestSize(), usePersistentDigest);
    VbmetaAssembler assembler = VbmetaAssembler.prepare(vbmeta);
    try (ImageEdit edit = ImageEdit.from(image, original)) {
      long imageSize = AvbTreeGeometry.roundUp(rounded, Sizes.IMAGE_BLOCK);
      edit.resize(imageSize);
      int roots = generateFec && !noHashtree ? fecNumRoots : 0;
      AvbTreeGeometry geometry = AvbTreeGeometry.of(imageSize, blockSize, alg, roots);
      byte[] root = AvbHashtree.build(edit.device(), geometry, saltBytes, threads, progress);
      long treeSize = noHashtree ? 0 : geometry.treeSize();
      long end = imageSize + AvbTreeGeometry.roundUp(treeSize, Sizes.IMAGE_BLOCK);
      long fecOffset = 0;
      long fecSize = 0;
      if (generateFec) {
        fecOffset = end;
        fecSize = noHashtree ? 0 : geometry.fecSize();
        end += AvbTreeGeometry.roundUp(fecSize, Sizes.IMAGE_BLOCK);
      }
      edit.resize(end);
      int flags =
          (doNotUseAb ? HashtreeDescriptor.FLAG_DO_NOT_USE_AB : 0)
              | (checkAtMostOnce ? HashtreeDescriptor.FLAG_CHECK_AT_MOST_ONCE : 0);
      HashtreeDescriptor descriptor =
          new HashtreeDescriptor(
              1,
              imageSize,
              imageSize,
              treeSize,
              blockSize,
              blockSize,
              generateFec ? fecNumRoots : 0,
              fecOffset,
              fecSize,
              hashAlgorithm,
              partitionName,
              saltBytes,
              usePersistentDigest ? new byte[0] : root,
              flags);
      byte[] blob =
          assembler.build(
              List.of(descriptor), setupAsRootfsFromKernel ? descriptor : null, ownMinor());
      AvbFooter footer = null;
      if (!doNotAppendVbmetaImage) {
        footer =
            FooterBlock.appendVbmeta(edit, end, blob, original, partitionSize, image.toString());
      }
      if (outputVbmetaImage != null) {
        AtomicOutput.write(outputVbmetaImage, blob);
      }
      edit.commit();
      return new Added(descriptor, blob, footer);
    }
  }
}
