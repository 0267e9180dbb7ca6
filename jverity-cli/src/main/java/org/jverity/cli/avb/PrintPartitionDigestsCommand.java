package org.jverity.cli.avb;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jverity.avb.tool.PartitionDigests;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;

/** {@code jverity avb print_partition_digests}: avbtool's, text or {@code --json}. */
public final class PrintPartitionDigestsCommand implements Command {
  Path image;
  boolean json;
  Path output;

  public static final Syntax<PrintPartitionDigestsCommand> SYNTAX =
      Syntax.command(
              "avb print_partition_digests",
              "Print each partition's digest (hash descriptor) or root digest (hashtree), following"
                  + " chains, as avbtool does.",
              PrintPartitionDigestsCommand::new)
          .requiredOption(
              "--image",
              "IMAGE",
              "The top-level vbmeta image.",
              (c, v) -> c.image = FileName.parse(v))
          .namesAFile()
          .flag("--json", "Print avbtool's JSON ({\"partitions\": [...]}).", c -> c.json = true)
          .option(
              "--output",
              "FILE",
              "Write to FILE instead of stdout.",
              (c, v) -> c.output = OutputFile.parse(v))
          .namesAFile()
          .abbreviations();

  @Override
  public int run(Io io) throws IOException {
    Outputs.requireImage(image);
    Outputs.check(image, output, "--output", List.of());
    List<PartitionDigests.Digest> digests = new PartitionDigests(image).apply();
    TextOutput.print(
        io, output, json ? PartitionDigests.json(digests) : PartitionDigests.text(digests));
    return ExitCode.OK;
  }
}
