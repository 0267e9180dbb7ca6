package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jverity.avb.AvbFooter;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.HashDescriptor;
import org.jverity.avb.hashtree.AvbHashDigest;
import org.jverity.avb.hashtree.AvbTreeGeometry;
import org.jverity.format.UnsupportedHashAlgorithmException;
import org.jverity.format.VerityParameterException;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.AtomicOutput;
import org.jverity.io.FileDevice;

/**
 * avbtool's {@code add_hash_footer}: a hash descriptor over the whole image ({@code H(salt ‖
 * image)}), the vbmeta blob and the footer, appended so the image ends at {@code partitionSize}.
 * Byte for byte avbtool's output; idempotent; a failure leaves the image as it was. The image is
 * hashed as a stream (avbtool reads it whole into memory).
 *
 * @param image the partition image (a boot or dtbo image), changed in place
 * @param partitionSize the partition's size, a multiple of 4096, at least 69632; or 0 with {@code
 *     dynamicPartitionSize}
 * @param dynamicPartitionSize size the partition to fit: the image plus 69632, rounded to 4096
 * @param partitionName the descriptor's partition name
 * @param hashAlgorithm sha256 by default (libavb takes sha256 and sha512 only)
 * @param salt hex, or null for a random salt as long as a digest
 * @param usePersistentDigest store no digest (the device keeps it); no random salt
 * @param doNotUseAb the descriptor's DO_NOT_USE_AB flag
 * @param outputVbmetaImage also write the vbmeta blob there, or null
 * @param doNotAppendVbmetaImage leave the image cut back to its original size, footer-less
 * @param vbmeta the vbmeta's own options
 */
public record AddHashFooter(
    Path image,
    long partitionSize,
    boolean dynamicPartitionSize,
    String partitionName,
    String hashAlgorithm,
    String salt,
    boolean usePersistentDigest,
    boolean doNotUseAb,
    Path outputVbmetaImage,
    boolean doNotAppendVbmetaImage,
    VbmetaOptions vbmeta) {

  public static final String DEFAULT_HASH = "sha256";

  public AddHashFooter {
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

  /** avbtool's defaults: partition name '', sha256, a random salt, nothing appended elsewhere. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The command's options, each at avbtool's default until set: what a command line fills option by
   * option. Not thread-safe.
   */
  public static final class Builder extends FooterBuilder<Builder> {
    private boolean dynamicPartitionSize;

    private Builder() {
      super(DEFAULT_HASH);
    }

    @Override
    Builder self() {
      return this;
    }

    public Builder dynamicPartitionSize(boolean dynamicPartitionSize) {
      this.dynamicPartitionSize = dynamicPartitionSize;
      return this;
    }

    public AddHashFooter build() {
      return new AddHashFooter(
          image,
          partitionSize,
          dynamicPartitionSize,
          partitionName,
          hashAlgorithm,
          salt,
          usePersistentDigest,
          doNotUseAb,
          outputVbmetaImage,
          doNotAppendVbmetaImage,
          vbmeta);
    }
  }

  /** What was appended. */
  public record Added(HashDescriptor descriptor, byte[] vbmeta, AvbFooter footer) {}

  /** {@code --print_required_libavb_version}. */
  public String requiredLibavbVersion() {
    return "1." + Math.max(ownMinor(), vbmeta.requiredMinor());
  }

  private int ownMinor() {
    return usePersistentDigest || doNotUseAb ? 1 : 0;
  }

  /** {@code --calc_max_image_size}: the partition size less 69632 bytes of metadata. */
  public long maxImageSize() throws IOException {
    if (dynamicPartitionSize) {
      throw new VerityParameterException(
          "--calc_max_image_size: not with --dynamic_partition_size");
    }
    checkPartitionSize();
    return partitionSize - Sizes.MAX_METADATA;
  }

  private void checkPartitionSize() throws IOException {
    if (partitionSize <= 0 && !dynamicPartitionSize) {
      throw new VerityParameterException(
          "--partition_size: "
              + partitionSize
              + " (expected: a size, or --dynamic_partition_size)");
    }
    if (!dynamicPartitionSize && partitionSize < Sizes.MAX_METADATA) {
      throw new PartitionTooSmallException(
          "--partition_size: "
              + partitionSize
              + " is too small (expected: at least "
              + Sizes.MAX_METADATA
              + ")");
    }
  }

  private HashAlgorithm algorithm() {
    return HashAlgorithm.lookup(hashAlgorithm)
        .orElseThrow(
            () ->
                new UnsupportedHashAlgorithmException(
                    hashAlgorithm, "--hash_algorithm: " + hashAlgorithm + " (not supported)"));
  }

  /** Hashes the image and appends vbmeta and footer. */
  public Added apply() throws IOException {
    checkPartitionSize();
    HashAlgorithm alg = algorithm();
    long fileSize = Files.size(image);
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
    long partition =
        dynamicPartitionSize
            ? AvbTreeGeometry.roundUp(original + Sizes.MAX_METADATA, Sizes.IMAGE_BLOCK)
            : partitionSize;
    Sizes.requireWholeBlocks(partition);
    long max = partition - Sizes.MAX_METADATA;
    if (original > max) {
      throw new PartitionTooSmallException(image.toString(), original, max, partition);
    }
    byte[] saltBytes = Salt.of(salt, alg.digestSize(), usePersistentDigest);
    VbmetaAssembler assembler = VbmetaAssembler.prepare(vbmeta);
    byte[] digest;
    try (FileDevice dev = FileDevice.openChannel(image, false)) {
      digest = AvbHashDigest.compute(dev, original, alg, saltBytes);
    }
    HashDescriptor descriptor =
        new HashDescriptor(
            original,
            hashAlgorithm,
            partitionName,
            saltBytes,
            usePersistentDigest ? new byte[0] : digest,
            doNotUseAb ? 1 : 0);
    byte[] blob = assembler.build(List.of(descriptor), null, ownMinor());
    try (ImageEdit edit = ImageEdit.from(image, original)) {
      AvbFooter footer = null;
      if (!doNotAppendVbmetaImage) {
        long offset = AvbTreeGeometry.roundUp(original, Sizes.IMAGE_BLOCK);
        edit.resize(offset);
        footer =
            FooterBlock.appendVbmeta(edit, offset, blob, original, partition, image.toString());
      }
      if (outputVbmetaImage != null) {
        AtomicOutput.write(outputVbmetaImage, blob);
      }
      edit.commit();
      return new Added(descriptor, blob, footer);
    }
  }
}
