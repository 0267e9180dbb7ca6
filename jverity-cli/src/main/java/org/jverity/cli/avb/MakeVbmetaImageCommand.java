package org.jverity.cli.avb;

import static org.jverity.cli.avb.AvbSpelling.names;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.avb.tool.MakeVbmetaImage;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;

/** {@code jverity avb make_vbmeta_image}: avbtool's. */
public final class MakeVbmetaImageCommand implements Command {
  Path output;
  long paddingSize;
  final VbmetaArgs vbmeta = new VbmetaArgs();

  public static final Syntax<MakeVbmetaImageCommand> SYNTAX =
      Syntax.command(
              "avb make_vbmeta_image",
              "Make a vbmeta image (the vbmeta partition: chain descriptors, included descriptors),"
                  + " as avbtool does.",
              MakeVbmetaImageCommand::new)
          .option(
              "--output",
              "FILE",
              "The vbmeta image to write.",
              (c, v) -> c.output = OutputFile.parse(v))
          .namesAFile()
          .option(
              names("--padding_size"),
              "N",
              "Pad the image with zeros to a multiple of N bytes (default 0: no padding).",
              (c, v) -> c.paddingSize = AvbNumber.parseLong(v))
          .include(VbmetaArgs.SYNTAX, c -> c.vbmeta)
          .abbreviations()
          .example(
              "Make a vbmeta partition signed with system_key.pem holding boot.img's descriptor:",
              "jverity avb make_vbmeta_image --output vbmeta.img --key system_key.pem --algorithm SHA256_RSA4096 --include_descriptors_from_image boot.img");

  @Override
  public int run(Io io) throws IOException {
    MakeVbmetaImage command = new MakeVbmetaImage(output, paddingSize, vbmeta.options());
    if (vbmeta.printRequiredLibavbVersion) {
      io.out().println(command.requiredLibavbVersion());
      return ExitCode.OK;
    }
    Outputs.requireGiven(output, "--output");
    Outputs.check(null, output, "--output", vbmeta.inputs());
    command.apply();
    return ExitCode.OK;
  }
}
