package org.jverity.cli.avb;

import static org.jverity.cli.avb.AvbSpelling.names;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.avb.tool.EraseFooter;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;

/** {@code jverity avb erase_footer}: avbtool's. */
public final class EraseFooterCommand implements Command {
  Path image;
  boolean keepHashtree;

  public static final Syntax<EraseFooterCommand> SYNTAX =
      Syntax.command(
              "avb erase_footer",
              "Cut an image back to its size before the footer command (byte for byte the file it"
                  + " was given), as avbtool does.",
              EraseFooterCommand::new)
          .requiredOption(
              "--image",
              "IMAGE",
              "The image with a footer (changed in place).",
              (c, v) -> c.image = FileName.parse(v))
          .namesAFile()
          .flag(
              names("--keep_hashtree"),
              "Keep the hash tree and the FEC.",
              c -> c.keepHashtree = true)
          .abbreviations()
          .example(
              "Cut boot.img back to the bytes it had before add_hash_footer:",
              "jverity avb erase_footer --image boot.img");

  @Override
  public int run(Io io) throws IOException {
    Outputs.requireImage(image);
    new EraseFooter(image, keepHashtree).apply();
    return ExitCode.OK;
  }
}
