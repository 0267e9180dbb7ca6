package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.jverity.avb.AvbAlgorithm;
import org.jverity.avb.AvbPublicKey;
import org.jverity.avb.AvbSigner;
import org.jverity.avb.ChainPartitionDescriptor;
import org.jverity.avb.Descriptor;
import org.jverity.avb.HashDescriptor;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.KernelCmdlineDescriptor;
import org.jverity.avb.PropertyDescriptor;
import org.jverity.avb.SigningHelper;
import org.jverity.avb.VbmetaBuilder;
import org.jverity.avb.VbmetaImage;
import org.jverity.format.VerityParameterException;

/**
 * avbtool's {@code _generate_vbmeta_blob} above the byte layout ({@link VbmetaBuilder} does that):
 * which descriptors, in which order, with which release string and minimum version. Everything the
 * options name (key, chained keys, property files, included images) is read by {@link #prepare},
 * before a command touches its image, so a bad option fails with the image as it was.
 *
 * <p>Order (AVB.md 2.2): the image's own descriptor, {@code --chain_partition}s, {@code --prop},
 * {@code --prop_from_file}, the {@code --setup_rootfs_from_kernel} pair, the {@code
 * --setup_as_rootfs_from_kernel} pair, {@code --kernel_cmdline}, then the included descriptors:
 * those without a partition name in order, the others de-duplicated by class and name (the last
 * wins) and sorted by avbtool's key {@code "<PythonClassName>_<partition>"}.
 */
public final class VbmetaAssembler {
  /** avbtool's release string, which the vbmeta header records by default. */
  public static final String AVBTOOL_RELEASE = VbmetaBuilder.RELEASE_STRING;

  private final VbmetaOptions options;
  private final AvbSigner signer;
  private final byte[] publicKeyMetadata;
  private final List<Descriptor> chains;
  private final List<Descriptor> afterOwn; // props, files, setup_rootfs_from_kernel
  private final List<Descriptor> kernelCmdlines;
  private final List<Descriptor> included;
  private final int includedMinor;

  private VbmetaAssembler(
      VbmetaOptions options,
      AvbSigner signer,
      byte[] publicKeyMetadata,
      List<Descriptor> chains,
      List<Descriptor> afterOwn,
      List<Descriptor> kernelCmdlines,
      List<Descriptor> included,
      int includedMinor) {
    this.options = options;
    this.signer = signer;
    this.publicKeyMetadata = publicKeyMetadata;
    this.chains = chains;
    this.afterOwn = afterOwn;
    this.kernelCmdlines = kernelCmdlines;
    this.included = included;
    this.includedMinor = includedMinor;
  }

  /** Reads and checks everything {@code options} name. */
  public static VbmetaAssembler prepare(VbmetaOptions options) throws IOException {
    AvbSigner signer = signer(options.algorithm(), options.key(), options.signingHelper());
    byte[] metadata =
        options.publicKeyMetadata() == null
            ? new byte[0]
            : Files.readAllBytes(options.publicKeyMetadata());
    List<Descriptor> chains = chains(options);
    List<Descriptor> after = new ArrayList<>();
    for (String prop : options.props()) {
      int colon = prop.indexOf(':');
      if (colon < 0) {
        throw new VerityParameterException("--prop: " + prop + " (expected: KEY:VALUE)");
      }
      after.add(
          new PropertyDescriptor(
              prop.substring(0, colon),
              prop.substring(colon + 1).getBytes(StandardCharsets.UTF_8)));
    }
    for (String prop : options.propsFromFile()) {
      int colon = prop.indexOf(':');
      if (colon < 0) {
        throw new VerityParameterException("--prop_from_file: " + prop + " (expected: KEY:PATH)");
      }
      after.add(
          new PropertyDescriptor(
              prop.substring(0, colon), Files.readAllBytes(Path.of(prop.substring(colon + 1)))));
    }
    if (options.setupRootfsFromKernel() != null) {
      ParsedImage image = ParsedImage.read(options.setupRootfsFromKernel());
      HashtreeDescriptor ht =
          image
              .hashtree()
              .orElseThrow(
                  () ->
                      new VerityParameterException(
                          "--setup_rootfs_from_kernel: "
                              + options.setupRootfsFromKernel()
                              + " (expected: an image with a hashtree descriptor)"));
      after.addAll(
          DmVerityCmdline.descriptors(
              ht.partitionName()
                  + ": hashtree descriptor in "
                  + options.setupRootfsFromKernel()
                  + " (--setup_rootfs_from_kernel)",
              ht));
    }
    List<Descriptor> cmdlines = new ArrayList<>();
    for (String c : options.kernelCmdlines()) {
      cmdlines.add(new KernelCmdlineDescriptor(0, c));
    }
    List<Descriptor> included = new ArrayList<>();
    TreeMap<String, Descriptor> named = new TreeMap<>();
    int minor = 0;
    for (Path p : options.includeDescriptorsFromImage()) {
      VbmetaImage vbmeta = ParsedImage.read(p).vbmeta();
      minor = Math.max(minor, vbmeta.header().requiredLibavbVersionMinor());
      for (Descriptor d : vbmeta.descriptors()) {
        String key = avbtoolKey(d);
        if (key == null) {
          included.add(d);
        } else {
          named.put(key, d); // the last one seen wins (avbtool, bug 76386656)
        }
      }
    }
    included.addAll(named.values());
    return new VbmetaAssembler(options, signer, metadata, chains, after, cmdlines, included, minor);
  }

  /** The minimum minor version the options and the included images need. */
  public int requiredMinor(int commandMinor) {
    return Math.max(Math.max(commandMinor, options.requiredMinor()), includedMinor);
  }

  /**
   * The vbmeta blob (unpadded) for {@code own} (the image's own hash or hashtree descriptor, or
   * none), with the dm-verity cmdline pair of {@code setupAsRootfs} when not null.
   */
  public byte[] build(List<? extends Descriptor> own, HashtreeDescriptor setupAsRootfs, int minor)
      throws IOException {
    List<Descriptor> all = new ArrayList<>(own);
    all.addAll(chains);
    all.addAll(afterOwn);
    if (setupAsRootfs != null) {
      all.addAll(
          DmVerityCmdline.descriptors(
              setupAsRootfs.partitionName() + ": hashtree descriptor", setupAsRootfs));
    }
    all.addAll(kernelCmdlines);
    all.addAll(included);
    String release = options.releaseString() != null ? options.releaseString() : AVBTOOL_RELEASE;
    if (options.appendToReleaseString() != null) {
      release += " " + options.appendToReleaseString();
    }
    try {
      return new VbmetaBuilder(signer)
          .rollbackIndex(options.rollbackIndex())
          .flags(options.flags())
          .rollbackIndexLocation(options.rollbackIndexLocation())
          .releaseString(release)
          .requiredLibavbVersionMinor(requiredMinor(minor))
          .descriptors(all)
          .publicKeyMetadata(publicKeyMetadata)
          .build();
    } catch (GeneralSecurityException e) {
      throw new IOException("--key " + options.key() + ": signing failed: " + e.getMessage(), e);
    }
  }

  /**
   * The signer of {@code algorithm} with the key in {@code key}, or {@code helper} signing with it,
   * checked to fit.
   */
  static AvbSigner signer(AvbAlgorithm algorithm, Path key, SigningHelper helper)
      throws IOException {
    if (algorithm == AvbAlgorithm.NONE) {
      return AvbSigner.NONE;
    }
    if (key == null) {
      throw new VerityParameterException(
          "--key: missing (expected: "
              + (helper == null ? "a PEM private key" : "the PEM public key " + helper.option())
              + " signs with, for "
              + algorithm
              + ")");
    }
    if (helper != null) {
      try {
        return AvbSigner.withHelper(algorithm, key, helper);
      } catch (IllegalArgumentException e) {
        throw new VerityParameterException("--key " + key + ": " + e.getMessage());
      }
    }
    KeyPair k = AvbPublicKey.readKeyPair(key); // RSA or ML-DSA, with its public key
    try {
      return AvbSigner.of(algorithm, k);
    } catch (IllegalArgumentException e) {
      throw new VerityParameterException("--key " + key + ": " + e.getMessage());
    }
  }

  private static List<Descriptor> chains(VbmetaOptions options) throws IOException {
    List<Descriptor> chains = new ArrayList<>();
    List<Integer> used = new ArrayList<>(List.of(options.rollbackIndexLocation()));
    List<String> all = new ArrayList<>(options.chainPartitions());
    all.addAll(options.chainPartitionsDoNotUseAb());
    for (int i = 0; i < all.size(); i++) {
      boolean noAb = i >= options.chainPartitions().size();
      String option = noAb ? "--chain_partition_do_not_use_ab" : "--chain_partition";
      String spec = all.get(i);
      String[] t = spec.split(":", -1);
      if (t.length != 3) {
        throw new VerityParameterException(
            option + ": " + spec + " (expected: PART_NAME:ROLLBACK_SLOT:KEY_PATH)");
      }
      int location;
      try {
        location = Integer.parseInt(t[1]);
      } catch (NumberFormatException e) {
        throw new VerityParameterException(
            option + ": " + spec + " (expected: a whole number as ROLLBACK_SLOT)");
      }
      if (used.contains(location)) {
        throw new VerityParameterException(
            option + ": " + spec + " (rollback index location " + location + " already in use)");
      }
      used.add(location);
      if (location < 1) {
        throw new VerityParameterException(
            option + ": " + spec + " (expected: a rollback index location of 1 or more)");
      }
      byte[] key = AvbPublicKey.readBlob(Path.of(t[2]));
      chains.add(new ChainPartitionDescriptor(location, t[0], key, noAb ? 1 : 0));
    }
    return chains;
  }

  /** avbtool's dictionary key of an included descriptor that names a partition; else null. */
  private static String avbtoolKey(Descriptor d) {
    return switch (d) {
      case HashtreeDescriptor h -> "AvbHashtreeDescriptor_" + h.partitionName();
      case HashDescriptor h -> "AvbHashDescriptor_" + h.partitionName();
      case ChainPartitionDescriptor c -> "AvbChainPartitionDescriptor_" + c.partitionName();
      default -> null;
    };
  }
}
