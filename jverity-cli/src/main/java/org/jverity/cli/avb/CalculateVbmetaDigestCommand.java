package org.jverity.cli.avb;

import static org.jverity.cli.avb.AvbSpelling.names;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jverity.avb.tool.VbmetaDigest;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;

/** {@code jverity avb calculate_vbmeta_digest}: avbtool's. */
public final class CalculateVbmetaDigestCommand implements Command {
  Path image;
  String hashAlgorithm = VbmetaDigest.DEFAULT_HASH;
  Path output;

  public static final Syntax<CalculateVbmetaDigestCommand> SYNTAX =
      Syntax.command(
              "avb calculate_vbmeta_digest",
              "Print the digest of the vbmeta of an image and of the images it chains to (found"
                  + " beside it, as avbtool finds them): androidboot.vbmeta.digest.",
              CalculateVbmetaDigestCommand::new)
          .requiredOption(
              "--image",
              "IMAGE",
              "The top-level vbmeta image.",
              (c, v) -> c.image = FileName.parse(v))
          .namesAFile()
          .option(
              names("--hash_algorithm"),
              "ALG",
              "Digest (default sha256).",
              (c, v) -> c.hashAlgorithm = v)
          .option(
              "--output",
              "FILE",
              "Write the digest to FILE instead of stdout.",
              (c, v) -> c.output = OutputFile.parse(v))
          .namesAFile()
          .abbreviations()
          .example(
              "Print the digest of vbmeta.img and the vbmetas it chains to, as a bootloader passes it to the kernel:",
              "jverity avb calculate_vbmeta_digest --image vbmeta.img");

  @Override
  public int run(Io io) throws IOException {
    Outputs.requireImage(image);
    Outputs.check(image, output, "--output", List.of());
    TextOutput.print(io, output, new VbmetaDigest(image, hashAlgorithm).apply() + "\n");
    return ExitCode.OK;
  }
}
