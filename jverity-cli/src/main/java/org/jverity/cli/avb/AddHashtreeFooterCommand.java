package org.jverity.cli.avb;

import static org.jverity.cli.avb.AvbSpelling.names;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jverity.avb.tool.AddHashtreeFooter;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.term.ProgressBar;
import org.jverity.fec.ReedSolomon;

/** {@code jverity avb add_hashtree_footer}: avbtool's, with FEC built in. */
public final class AddHashtreeFooterCommand implements Command {
  /** The tool's options, each at avbtool's default until the command line sets it. */
  final AddHashtreeFooter.Builder footer = AddHashtreeFooter.builder();

  Path image; // checked at run: the footer's own copy is not readable back
  Path outputVbmetaImage;
  boolean generateFec; // the deprecated flag, which only prints a warning
  boolean calcMaxImageSize;
  Integer threads;
  final VbmetaArgs vbmeta = new VbmetaArgs();

  public static final Syntax<AddHashtreeFooterCommand> SYNTAX =
      Syntax.command(
              "avb add_hashtree_footer",
              "Append a hash tree, FEC, a vbmeta and an AVB footer to a partition image, as avbtool"
                  + " does (in place; a failure leaves the image as it was).",
              AddHashtreeFooterCommand::new)
          .file(
              "--image",
              "IMAGE",
              "The partition image (changed in place).",
              (c, p) -> c.footer.image(c.image = p))
          .option(
              names("--partition_size"),
              "BYTES",
              "Partition size, a multiple of 4096; 0 (default) ends the image after the footer.",
              (c, v) -> c.footer.partitionSize(AvbNumber.parseLong(v)))
          .option(
              names("--partition_name"),
              "NAME",
              "Partition name in the descriptor (default '').",
              (c, v) -> c.footer.partitionName(v))
          .option(
              names("--hash_algorithm"),
              "ALG",
              "Hash of the tree (default sha1).",
              (c, v) -> c.footer.hashAlgorithm(v))
          .option(
              "--salt",
              "HEX",
              "Salt (default: random, as long as a digest).",
              (c, v) -> c.footer.salt(v))
          .option(
              names("--block_size"),
              "BYTES",
              "Data and hash block size (default 4096); FEC is cut in blocks of it too, the unit"
                  + " the kernel reads (avbtool's libfec: always 4096).",
              (c, v) -> c.footer.blockSize(AvbNumber.parseInt(v)))
          .flag(names("--do_not_generate_fec"), "Append no FEC.", c -> c.footer.generateFec(false))
          .flag(
              names("--generate_fec"),
              "Deprecated: FEC is appended by default.",
              c -> c.generateFec = true)
          .option(
              names("--fec_num_roots"),
              "N",
              "FEC parity bytes per codeword, "
                  + ReedSolomon.ROOTS_RANGE
                  + " (default "
                  + AddHashtreeFooter.DEFAULT_FEC_ROOTS
                  + ").",
              (c, v) -> c.footer.fecNumRoots(AvbNumber.parseInt(v)))
          .flag(
              names("--calc_max_image_size"),
              "Print the largest image that fits --partition_size with its tree, FEC and metadata.",
              c -> c.calcMaxImageSize = true)
          .option(
              names("--output_vbmeta_image"),
              "FILE",
              "Also write the vbmeta to FILE.",
              (c, v) -> c.footer.outputVbmetaImage(c.outputVbmetaImage = OutputFile.parse(v)))
          .flag(
              names("--do_not_append_vbmeta_image"),
              "Append tree and FEC only: no vbmeta, no footer.",
              c -> c.footer.doNotAppendVbmetaImage(true))
          .flag(
              names("--setup_as_rootfs_from_kernel"),
              "Add the dm-verity kernel cmdline that sets up this image as root.",
              c -> c.footer.setupAsRootfsFromKernel(true))
          .flag(
              names("--no_hashtree"),
              "Record the descriptor but append no tree and no FEC.",
              c -> c.footer.noHashtree(true))
          .flag(
              names("--check_at_most_once"),
              "Verify each data block only the first time it is read (needs libavb 1.1).",
              c -> c.footer.checkAtMostOnce(true))
          .flag(
              names("--use_persistent_digest"),
              "Store no root digest: the device keeps it (needs libavb 1.1).",
              c -> c.footer.usePersistentDigest(true))
          .flag(
              names("--do_not_use_ab"),
              "The partition does not use A/B (needs libavb 1.1).",
              c -> c.footer.doNotUseAb(true))
          .option(
              "--threads",
              "N",
              "Hashing and FEC threads (default: one per core).",
              (c, v) -> c.threads = AvbNumber.parseInt(v))
          .include(VbmetaArgs.SYNTAX, c -> c.vbmeta)
          .abbreviations(List.of("--threads"))
          .example(
              "Give system.img a hash tree, FEC and a vbmeta signed with system_key.pem, for a 16 MiB partition:",
              "jverity avb add_hashtree_footer --image system.img --partition_name system --partition_size 16777216 --key system_key.pem --algorithm SHA256_RSA4096");

  @Override
  public int run(Io io) throws IOException {
    AddHashtreeFooter command = footer.vbmeta(vbmeta.options()).build();
    if (generateFec) {
      io.err()
          .println(
              "The --generate_fec option is deprecated since FEC is now generated by default."
                  + " Use the option --do_not_generate_fec to not generate FEC.");
    }
    if (vbmeta.printRequiredLibavbVersion) {
      io.out().println(command.requiredLibavbVersion());
      return ExitCode.OK;
    }
    if (calcMaxImageSize) {
      io.out().println(command.maxImageSize());
      return ExitCode.OK;
    }
    Outputs.requireImage(image);
    Outputs.check(image, outputVbmetaImage, "--output_vbmeta_image", vbmeta.inputs());
    try (ProgressBar bar =
        ProgressBar.start("add_hashtree_footer", command.workBytes(), System.err)) {
      command.apply(Outputs.threads(threads), bar);
      bar.finish();
    }
    return ExitCode.OK;
  }
}
