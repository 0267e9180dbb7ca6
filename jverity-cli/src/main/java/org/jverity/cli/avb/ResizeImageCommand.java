package org.jverity.cli.avb;

import static org.jverity.cli.avb.AvbSpelling.names;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.avb.tool.ResizeImage;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;

/** {@code jverity avb resize_image}: avbtool's. */
public final class ResizeImageCommand implements Command {
  Path image;
  long partitionSize;

  public static final Syntax<ResizeImageCommand> SYNTAX =
      Syntax.command(
              "avb resize_image",
              "Move an image's footer to the end of a partition of another size, as avbtool does.",
              ResizeImageCommand::new)
          .requiredOption(
              "--image",
              "IMAGE",
              "The image with a footer (changed in place).",
              (c, v) -> c.image = FileName.parse(v))
          .namesAFile()
          .requiredOption(
              names("--partition_size"),
              "BYTES",
              "The new partition size, a multiple of 4096.",
              (c, v) -> c.partitionSize = AvbNumber.parseLong(v))
          .abbreviations();

  @Override
  public int run(Io io) throws IOException {
    Outputs.requireImage(image);
    new ResizeImage(image, partitionSize).apply();
    return ExitCode.OK;
  }
}
