package org.jverity.avb.tool;

import java.nio.file.Path;
import java.util.List;
import org.jverity.avb.AvbAlgorithm;
import org.jverity.avb.SigningHelper;

/**
 * What every vbmeta-producing command takes (avbtool's {@code _add_common_args}), values as avbtool
 * takes them: the specs ({@code NAME:LOC:KEY}, {@code KEY:VALUE}, {@code KEY:PATH}) are parsed when
 * the vbmeta is assembled, with avbtool's messages.
 *
 * @param algorithm the signing algorithm ({@code --algorithm}, default NONE)
 * @param key the PEM private key ({@code --key}); required unless NONE; with a signing helper, the
 *     key the helper signs with: its public half is enough
 * @param signingHelper the program that signs ({@code --signing_helper[_with_files]}), or null to
 *     sign with {@code key}
 * @param publicKeyMetadata a file whose bytes are stored after the key, or null
 * @param rollbackIndex {@code --rollback_index}
 * @param flags {@code --flags}, with {@code --set_hashtree_disabled_flag} already OR-ed in
 * @param rollbackIndexLocation {@code --rollback_index_location}
 * @param chainPartitions {@code --chain_partition NAME:LOC:KEYBLOB}, in command-line order
 * @param chainPartitionsDoNotUseAb {@code --chain_partition_do_not_use_ab}, the same, flag 1
 * @param props {@code --prop KEY:VALUE}
 * @param propsFromFile {@code --prop_from_file KEY:PATH}
 * @param kernelCmdlines {@code --kernel_cmdline}
 * @param setupRootfsFromKernel an image whose hashtree gives dm-verity cmdline descriptors, or null
 * @param includeDescriptorsFromImage images whose descriptors are copied
 * @param releaseString replaces "avbtool 1.3.0" ({@code --internal_release_string}), or null
 * @param appendToReleaseString appended after a space, or null
 */
public record VbmetaOptions(
    AvbAlgorithm algorithm,
    Path key,
    SigningHelper signingHelper,
    Path publicKeyMetadata,
    long rollbackIndex,
    int flags,
    int rollbackIndexLocation,
    List<String> chainPartitions,
    List<String> chainPartitionsDoNotUseAb,
    List<String> props,
    List<String> propsFromFile,
    List<String> kernelCmdlines,
    Path setupRootfsFromKernel,
    List<Path> includeDescriptorsFromImage,
    String releaseString,
    String appendToReleaseString) {
  public VbmetaOptions {
    if (algorithm == null) {
      algorithm = AvbAlgorithm.NONE;
    }
    chainPartitions = List.copyOf(chainPartitions);
    chainPartitionsDoNotUseAb = List.copyOf(chainPartitionsDoNotUseAb);
    props = List.copyOf(props);
    propsFromFile = List.copyOf(propsFromFile);
    kernelCmdlines = List.copyOf(kernelCmdlines);
    includeDescriptorsFromImage = List.copyOf(includeDescriptorsFromImage);
    if (rollbackIndex < 0) {
      throw new IllegalArgumentException(
          "--rollback_index: " + rollbackIndex + " (expected: 0 or more)");
    }
  }

  /** Unsigned, nothing added: what a command given none of these options makes. */
  public static VbmetaOptions none() {
    return new VbmetaOptions(
        AvbAlgorithm.NONE,
        null,
        null,
        null,
        0,
        0,
        0,
        List.of(),
        List.of(),
        List.of(),
        List.of(),
        List.of(),
        null,
        List.of(),
        null,
        null);
  }

  /** The minimum libavb minor version these options alone need (avbtool's bumps). */
  int requiredMinor() {
    int minor = 0;
    if (rollbackIndexLocation != 0) {
      minor = 2;
    }
    if (!chainPartitionsDoNotUseAb.isEmpty()) {
      minor = 3;
    }
    return minor;
  }
}
