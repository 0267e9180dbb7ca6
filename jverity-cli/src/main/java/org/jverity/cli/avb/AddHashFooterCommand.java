package org.jverity.cli.avb;

import static org.jverity.cli.avb.AvbSpelling.names;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.avb.tool.AddHashFooter;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;

/** {@code jverity avb add_hash_footer}: avbtool's. */
public final class AddHashFooterCommand implements Command {
  /** The tool's options, each at avbtool's default until the command line sets it. */
  final AddHashFooter.Builder footer = AddHashFooter.builder();

  Path image; // checked at run: the footer's own copy is not readable back
  Path outputVbmetaImage;
  boolean calcMaxImageSize;
  final VbmetaArgs vbmeta = new VbmetaArgs();

  public static final Syntax<AddHashFooterCommand> SYNTAX =
      Syntax.command(
              "avb add_hash_footer",
              "Append a hash descriptor's vbmeta and an AVB footer to a partition image (boot,"
                  + " dtbo), as avbtool does (in place; a failure leaves the image as it was).",
              AddHashFooterCommand::new)
          .file(
              "--image",
              "IMAGE",
              "The partition image (changed in place).",
              (c, p) -> c.footer.image(c.image = p))
          .option(
              names("--partition_size"),
              "BYTES",
              "Partition size, a multiple of 4096, at least 69632.",
              (c, v) -> c.footer.partitionSize(AvbNumber.parseLong(v)))
          .flag(
              names("--dynamic_partition_size"),
              "Size the partition to fit: the image plus 69632 bytes, rounded up to 4096.",
              c -> c.footer.dynamicPartitionSize(true))
          .option(
              names("--partition_name"),
              "NAME",
              "Partition name in the descriptor.",
              (c, v) -> c.footer.partitionName(v))
          .option(
              names("--hash_algorithm"),
              "ALG",
              "Hash of the image (default sha256; libavb takes sha256 and sha512).",
              (c, v) -> c.footer.hashAlgorithm(v))
          .option(
              "--salt",
              "HEX",
              "Salt (default: random, as long as a digest).",
              (c, v) -> c.footer.salt(v))
          .flag(
              names("--calc_max_image_size"),
              "Print the largest image that fits --partition_size with the metadata.",
              c -> c.calcMaxImageSize = true)
          .option(
              names("--output_vbmeta_image"),
              "FILE",
              "Also write the vbmeta to FILE.",
              (c, v) -> c.footer.outputVbmetaImage(c.outputVbmetaImage = OutputFile.parse(v)))
          .flag(
              names("--do_not_append_vbmeta_image"),
              "Append nothing (an existing footer is still removed).",
              c -> c.footer.doNotAppendVbmetaImage(true))
          .flag(
              names("--use_persistent_digest"),
              "Store no digest: the device keeps it (needs libavb 1.1).",
              c -> c.footer.usePersistentDigest(true))
          .flag(
              names("--do_not_use_ab"),
              "The partition does not use A/B (needs libavb 1.1).",
              c -> c.footer.doNotUseAb(true))
          .include(VbmetaArgs.SYNTAX, c -> c.vbmeta)
          .abbreviations()
          .example(
              "Give boot.img a hash descriptor and an AVB footer, for a 4 MiB partition:",
              "jverity avb add_hash_footer --image boot.img --partition_name boot --partition_size 4194304");

  @Override
  public int run(Io io) throws IOException {
    AddHashFooter command = footer.vbmeta(vbmeta.options()).build();
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
    command.apply();
    return ExitCode.OK;
  }
}
