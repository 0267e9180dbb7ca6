package org.jverity.cli.avb;

import static org.jverity.cli.avb.AvbSpelling.names;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.jverity.avb.AvbAlgorithm;
import org.jverity.avb.SigningHelper;
import org.jverity.avb.VbmetaHeader;
import org.jverity.avb.tool.VbmetaOptions;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.BadValue;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;

/**
 * The options of every vbmeta-producing subcommand (avbtool's {@code _add_common_args}), as the
 * command line gives them; {@link #options} makes the library's record.
 */
final class VbmetaArgs {
  AvbAlgorithm algorithm = AvbAlgorithm.NONE;
  Path key;
  Path signingHelper;
  Path signingHelperWithFiles;
  Path publicKeyMetadata;
  long rollbackIndex;
  int rollbackIndexLocation;
  int flags;
  boolean hashtreeDisabled;
  String releaseString;
  String appendToReleaseString;
  final List<String> props = new ArrayList<>();
  final List<String> propsFromFile = new ArrayList<>();
  final List<String> kernelCmdlines = new ArrayList<>();
  final List<String> chainPartitions = new ArrayList<>();
  final List<String> chainPartitionsDoNotUseAb = new ArrayList<>();
  Path setupRootfsFromKernel;
  final List<Path> includeDescriptorsFromImage = new ArrayList<>();
  boolean printRequiredLibavbVersion;

  /** avbtool's algorithm names, for help and messages. */
  static final String ALGORITHMS =
      Arrays.stream(AvbAlgorithm.values())
          .map(AvbAlgorithm::toString)
          .collect(Collectors.joining(", "));

  static final Syntax<VbmetaArgs> SYNTAX =
      Syntax.<VbmetaArgs>group()
          .option(
              "--algorithm",
              "ALGORITHM",
              "Signing algorithm: " + ALGORITHMS + " (default NONE).",
              (a, v) -> a.algorithm = algorithm(v))
          .choices(Arrays.stream(AvbAlgorithm.values()).map(AvbAlgorithm::toString).toList())
          .option(
              "--key",
              "KEY",
              "PEM private key signing the vbmeta; its size must fit --algorithm. With a"
                  + " signing helper: the key it signs with (its PEM public key is enough).",
              (a, v) -> a.key = FileName.parse(v))
          .namesAFile()
          .option(
              names("--signing_helper"),
              "APP",
              "Have APP sign (RSA): run as APP ALGORITHM KEY, given the PKCS#1 v1.5 block on"
                  + " stdin, the signature read from its stdout and checked with KEY.",
              (a, v) -> a.signingHelper = FileName.parse(v))
          .namesAFile()
          .option(
              names("--signing_helper_with_files"),
              "APP",
              "As --signing_helper, run as APP ALGORITHM KEY FILE: FILE holds the block, then"
                  + " the signature APP writes over it.",
              (a, v) -> a.signingHelperWithFiles = FileName.parse(v))
          .namesAFile()
          .option(
              names("--public_key_metadata"),
              "KEY_METADATA",
              "File stored after the public key in the vbmeta.",
              (a, v) -> a.publicKeyMetadata = FileName.parse(v))
          .namesAFile()
          .option(
              names("--rollback_index"),
              "N",
              "Rollback index (default 0).",
              (a, v) -> a.rollbackIndex = AvbNumber.parseLong(v))
          .option(
              names("--rollback_index_location"),
              "N",
              "Location of the main vbmeta's rollback index (default 0; more needs libavb 1.2).",
              (a, v) -> a.rollbackIndexLocation = AvbNumber.parseUnsignedInt(v))
          .option(
              "--flags",
              "N",
              "VBMeta flags (default 0).",
              (a, v) -> a.flags = AvbNumber.parseUnsignedInt(v))
          .flag(
              names("--set_hashtree_disabled_flag"),
              "Set the HASHTREE_DISABLED flag.",
              a -> a.hashtreeDisabled = true)
          .option(
              names("--internal_release_string"),
              "STR",
              "Release string instead of 'avbtool 1.3.0' (AOSP's tests give '').",
              (a, v) -> a.releaseString = v)
          .option(
              names("--append_to_release_string"),
              "STR",
              "Text appended to the release string, after a space.",
              (a, v) -> a.appendToReleaseString = v)
          .option(
              "--prop",
              "KEY:VALUE",
              "Add a property descriptor (repeatable).",
              (a, v) -> a.props.add(v))
          .option(
              names("--prop_from_file"),
              "KEY:PATH",
              "Add a property descriptor whose value is the file's bytes (repeatable).",
              (a, v) -> a.propsFromFile.add(v))
          .option(
              names("--kernel_cmdline"),
              "CMDLINE",
              "Add a kernel cmdline descriptor (repeatable).",
              (a, v) -> a.kernelCmdlines.add(v))
          .option(
              names("--setup_rootfs_from_kernel"),
              "IMAGE",
              "Add the dm-verity kernel cmdline that sets up IMAGE (its hashtree) as root.",
              (a, v) -> a.setupRootfsFromKernel = FileName.parse(v))
          .option(
              names("--include_descriptors_from_image"),
              "IMAGE",
              "Copy the descriptors of IMAGE (repeatable; by partition, the last wins).",
              (a, v) -> a.includeDescriptorsFromImage.add(FileName.parse(v)))
          .namesAFile()
          .option(
              names("--chain_partition"),
              "PART_NAME:ROLLBACK_SLOT:KEY_PATH",
              "Chain a partition signed by the key in KEY_PATH (an AVB public-key blob or a PEM key;"
                  + " repeatable).",
              (a, v) -> a.chainPartitions.add(v))
          .option(
              names("--chain_partition_do_not_use_ab"),
              "PART_NAME:ROLLBACK_SLOT:KEY_PATH",
              "As --chain_partition, for a partition without A/B (needs libavb 1.3).",
              (a, v) -> a.chainPartitionsDoNotUseAb.add(v))
          .flag(
              names("--print_required_libavb_version"),
              "Print the libavb version the options need, and do nothing else.",
              a -> a.printRequiredLibavbVersion = true);

  private static AvbAlgorithm algorithm(String name) {
    try {
      return AvbAlgorithm.named(name);
    } catch (IllegalArgumentException e) {
      throw new BadValue(ALGORITHMS);
    }
  }

  VbmetaOptions options() {
    return new VbmetaOptions(
        algorithm,
        key,
        signingHelper(),
        publicKeyMetadata,
        rollbackIndex,
        hashtreeDisabled ? flags | VbmetaHeader.FLAG_HASHTREE_DISABLED : flags,
        rollbackIndexLocation,
        chainPartitions,
        chainPartitionsDoNotUseAb,
        props,
        propsFromFile,
        kernelCmdlines,
        setupRootfsFromKernel,
        includeDescriptorsFromImage,
        releaseString,
        appendToReleaseString);
  }

  /** The signing helper named, or null; both options at once are refused. */
  private SigningHelper signingHelper() {
    if (signingHelper != null && signingHelperWithFiles != null) {
      throw new CliException(
          ExitCode.USAGE,
          "--signing_helper and --signing_helper_with_files: give one (the helper signs one way)");
    }
    if (signingHelperWithFiles != null) {
      return new SigningHelper(signingHelperWithFiles, true);
    }
    return signingHelper == null ? null : new SigningHelper(signingHelper, false);
  }

  /** The files these options read, for the outputs' distinctness checks. */
  List<Path> inputs() {
    List<Path> in = new ArrayList<>();
    if (key != null) {
      in.add(key);
    }
    for (Path helper : new Path[] {signingHelper, signingHelperWithFiles}) {
      if (helper != null) {
        in.add(helper);
      }
    }
    if (publicKeyMetadata != null) {
      in.add(publicKeyMetadata);
    }
    if (setupRootfsFromKernel != null) {
      in.add(setupRootfsFromKernel);
    }
    in.addAll(includeDescriptorsFromImage);
    for (String prop : propsFromFile) { // KEY:PATH
      int colon = prop.indexOf(':');
      if (colon >= 0 && colon + 1 < prop.length()) {
        in.add(Path.of(prop.substring(colon + 1)));
      }
    }
    List<String> chains = new ArrayList<>(chainPartitions);
    chains.addAll(chainPartitionsDoNotUseAb);
    for (String chain : chains) { // NAME:LOCATION:PATH
      String[] t = chain.split(":", -1);
      if (t.length == 3 && !t[2].isEmpty()) {
        in.add(Path.of(t[2]));
      }
    }
    return in;
  }
}
