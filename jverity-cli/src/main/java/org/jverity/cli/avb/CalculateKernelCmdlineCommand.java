package org.jverity.cli.avb;

import static org.jverity.cli.avb.AvbSpelling.names;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jverity.avb.tool.KernelCmdline;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;

/** {@code jverity avb calculate_kernel_cmdline}: avbtool's (no final newline, as avbtool). */
public final class CalculateKernelCmdlineCommand implements Command {
  Path image;
  boolean hashtreeDisabled;
  Path output;

  public static final Syntax<CalculateKernelCmdlineCommand> SYNTAX =
      Syntax.command(
              "avb calculate_kernel_cmdline",
              "Print the kernel cmdline of an image's descriptors and of its chained images', as"
                  + " avbtool does.",
              CalculateKernelCmdlineCommand::new)
          .requiredOption(
              "--image",
              "IMAGE",
              "The top-level vbmeta image.",
              (c, v) -> c.image = FileName.parse(v))
          .namesAFile()
          .flag(
              names("--hashtree_disabled"),
              "The cmdline for a device whose hashtree is disabled.",
              c -> c.hashtreeDisabled = true)
          .option(
              "--output",
              "FILE",
              "Write the cmdline to FILE instead of stdout.",
              (c, v) -> c.output = OutputFile.parse(v))
          .namesAFile()
          .abbreviations();

  @Override
  public int run(Io io) throws IOException {
    Outputs.requireImage(image);
    Outputs.check(image, output, "--output", List.of());
    TextOutput.print(io, output, new KernelCmdline(image, hashtreeDisabled).apply());
    return ExitCode.OK;
  }
}
