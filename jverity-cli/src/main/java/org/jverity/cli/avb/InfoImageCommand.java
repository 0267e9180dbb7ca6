package org.jverity.cli.avb;

import static org.jverity.cli.avb.AvbSpelling.names;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jverity.avb.tool.ImageInfo;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;

/**
 * {@code jverity avb info_image}: avbtool's text, exactly; with {@code --dm_verity} (jverity's,
 * named so that no avbtool option or prefix of one clashes) the dm-verity table and command after.
 */
public final class InfoImageCommand implements Command {
  Path image;
  Path output;
  boolean dmVerity;

  public static final Syntax<InfoImageCommand> SYNTAX =
      Syntax.command(
              "avb info_image",
              "Print what an image's footer and vbmeta say, line for line as avbtool.",
              InfoImageCommand::new)
          .requiredOption(
              "--image",
              "IMAGE",
              "An image with a footer, or a vbmeta image.",
              (c, v) -> c.image = FileName.parse(v))
          .namesAFile()
          .option(
              "--output",
              "FILE",
              "Write the text to FILE instead of stdout.",
              (c, v) -> c.output = OutputFile.parse(v))
          .namesAFile()
          .flag(
              names("--dm_verity"),
              "Then, for each hashtree, the dm-verity table libfs_avb builds and the equivalent"
                  + " veritysetup open command (not avbtool's; a descriptor whose numbers make no"
                  + " table is refused, exit 18).",
              c -> c.dmVerity = true)
          .abbreviations(List.of("--dm_verity"))
          .example(
              "Print what system.img's footer and vbmeta say, as avbtool does:",
              "jverity avb info_image --image system.img");

  @Override
  public int run(Io io) throws IOException {
    Outputs.requireImage(image);
    Outputs.check(image, output, "--output", List.of());
    ImageInfo info = new ImageInfo(image);
    TextOutput.print(io, output, dmVerity ? info.withDmVerity() : info.avbtoolText());
    return ExitCode.OK;
  }
}
