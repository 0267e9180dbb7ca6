package org.jverity.cli.avb;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.avb.tool.ZeroHashtree;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;

/** {@code jverity avb zero_hashtree}: avbtool's. */
public final class ZeroHashtreeCommand implements Command {
  Path image;

  public static final Syntax<ZeroHashtreeCommand> SYNTAX =
      Syntax.command(
              "avb zero_hashtree",
              "Overwrite an image's hash tree and FEC with \"ZeRoHaSH\" and zeros, as avbtool does"
                  + " (sizes and vbmeta kept).",
              ZeroHashtreeCommand::new)
          .requiredOption(
              "--image",
              "IMAGE",
              "The image with a hashtree footer (changed in place).",
              (c, v) -> c.image = FileName.parse(v))
          .namesAFile()
          .abbreviations();

  @Override
  public int run(Io io) throws IOException {
    Outputs.requireImage(image);
    new ZeroHashtree(image).apply();
    return ExitCode.OK;
  }
}
