package org.jverity.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.jverity.format.Hex;
import org.jverity.format.ImageIdentity;
import org.jverity.format.VerityParams;
import org.jverity.io.FileDevice;
import org.jverity.tree.TreeBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "format",
    description = "Calculate and store the hash tree of DATA on HASH, as veritysetup format does.")
final class FormatCommand implements Callable<Integer> {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "DATA", description = "Data image.")
  Path data;

  @Parameters(index = "1", paramLabel = "HASH", description = "Hash device (created if missing; may be DATA with --hash-offset).")
  Path hash;

  @Mixin VerityOptions options;

  @Option(names = "--root-hash-file", paramLabel = "FILE", description = "Also write the root hash (hex, no newline) to FILE.")
  Path rootHashFile;

  @Option(names = "--seed", paramLabel = "STRING", description = "Derive salt and UUID from this secret seed (reproducible builds).")
  String seed;

  @Option(names = "--seed-label", paramLabel = "NAME", description = "Label mixed with --seed (default: the data file's name).")
  String seedLabel;

  @Option(names = "--json", description = "Print the header and layout as JSON.")
  boolean json;

  @Option(names = "--threads", paramLabel = "N", description = "Hashing threads (default: one per core).")
  Integer threads;

  @Override
  public Integer call() throws IOException {
    Checks.requireThreads(threads);
    Checks.requireFile(data, "data");
    VerityParams p = ParamsResolver.forFormat(options, data, ParamsResolver.seedBytes(seed), seedLabel);
    TreeBuilder builder = TreeBuilder.of(p);
    if (threads != null) {
      builder = builder.withThreads(threads);
    }
    if (Files.exists(hash) && Files.isSameFile(data, hash)) {
      builder.geometry().checkNoOverlapWithData();
    }
    long dataSize = DeviceSize.of(data); // Files.size says 0 for a block device
    if (dataSize < p.dataSize()) {
      // Checked before the hash file is created, so a refused format leaves nothing behind.
      throw new org.jverity.io.DeviceTooSmallException("data (" + p.dataBlocks() + " blocks of "
          + p.dataBlockSize() + " bytes)", data.toString(), dataSize, p.dataSize());
    }
    byte[] root;
    // One-shot: FileChannel devices open at once (no native binding to pay); nothing interrupts them.
    try (FileDevice dataDev = FileDevice.openChannel(data, false);
        FileDevice hashDev = FileDevice.openChannel(hash, true);
        ProgressBar bar = ProgressBar.start("format", builder.workBytes(), System.err)) {
      root = builder.withProgress(bar).build(dataDev, hashDev);
    }
    if (rootHashFile != null) {
      Files.writeString(rootHashFile, Hex.format(root));
    }
    spec.commandLine().getOut().print(json
        ? Json.write(Header.json(data.toString(), hash.toString(), builder.geometry(), root))
        : Header.text(hash.toString(), builder.geometry(), root)
            + Header.identityLine(ImageIdentity.of(p, root)));
    return ExitCode.OK;
  }
}
