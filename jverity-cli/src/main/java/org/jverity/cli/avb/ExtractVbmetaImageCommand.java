package org.jverity.cli.avb;

import static org.jverity.cli.avb.AvbSpelling.names;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jverity.avb.tool.ExtractVbmetaImage;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;

/** {@code jverity avb extract_vbmeta_image}: avbtool's. */
public final class ExtractVbmetaImageCommand implements Command {
  Path image;
  Path output;
  long paddingSize;

  public static final Syntax<ExtractVbmetaImageCommand> SYNTAX =
      Syntax.command(
              "avb extract_vbmeta_image",
              "Write the vbmeta of an image with a footer as a vbmeta image of its own, as avbtool"
                  + " does.",
              ExtractVbmetaImageCommand::new)
          .requiredOption(
              "--image", "IMAGE", "The image with a footer.", (c, v) -> c.image = FileName.parse(v))
          .namesAFile()
          .requiredOption(
              "--output",
              "FILE",
              "The vbmeta image to write.",
              (c, v) -> c.output = OutputFile.parse(v))
          .namesAFile()
          .option(
              names("--padding_size"),
              "N",
              "Pad with zeros to a multiple of N bytes (default 0: no padding).",
              (c, v) -> c.paddingSize = AvbNumber.parseLong(v))
          .abbreviations();

  @Override
  public int run(Io io) throws IOException {
    Outputs.requireImage(image);
    Outputs.check(image, output, "--output", List.of());
    new ExtractVbmetaImage(image, output, paddingSize).apply();
    return ExitCode.OK;
  }
}
