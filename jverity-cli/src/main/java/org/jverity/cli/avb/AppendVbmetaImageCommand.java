package org.jverity.cli.avb;

import static org.jverity.cli.avb.AvbSpelling.names;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jverity.avb.tool.AppendVbmetaImage;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;

/** {@code jverity avb append_vbmeta_image}: avbtool's. */
public final class AppendVbmetaImageCommand implements Command {
  Path image;
  Path vbmetaImage;
  Long partitionSize;

  public static final Syntax<AppendVbmetaImageCommand> SYNTAX =
      Syntax.command(
              "avb append_vbmeta_image",
              "Append the vbmeta of another image and an AVB footer to a partition image, as avbtool"
                  + " does.",
              AppendVbmetaImageCommand::new)
          .requiredOption(
              "--image",
              "IMAGE",
              "The partition image (changed in place).",
              (c, v) -> c.image = FileName.parse(v))
          .namesAFile()
          .requiredOption(
              names("--partition_size"),
              "BYTES",
              "Partition size, a multiple of 4096.",
              (c, v) -> c.partitionSize = AvbNumber.parseLong(v))
          .requiredOption(
              names("--vbmeta_image"),
              "IMAGE",
              "The image whose vbmeta is appended.",
              (c, v) -> c.vbmetaImage = FileName.parse(v))
          .namesAFile()
          .abbreviations();

  @Override
  public int run(Io io) throws IOException {
    Outputs.requireImage(image);
    Outputs.requireGiven(partitionSize, "--partition_size");
    Outputs.requireGiven(vbmetaImage, "--vbmeta_image");
    Outputs.check("--vbmeta_image", vbmetaImage, image, "--image", List.of());
    new AppendVbmetaImage(image, vbmetaImage, partitionSize).apply();
    return ExitCode.OK;
  }
}
