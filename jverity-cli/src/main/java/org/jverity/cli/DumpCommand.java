package org.jverity.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.jverity.format.UnsupportedHashAlgorithmException;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;
import org.jverity.io.FileDevice;
import org.jverity.tree.TreeGeometry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "dump", description = "Show the superblock of HASH, as veritysetup dump does.")
final class DumpCommand implements Callable<Integer> {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "HASH")
  Path hash;

  @Option(names = "--hash-offset", paramLabel = "BYTES", description = "Byte offset of the superblock on HASH.")
  Long hashOffset;

  @Option(names = "--json", description = "Print the header and layout as JSON.")
  boolean json;

  @Override
  public Integer call() throws IOException {
    Checks.requireFile(hash, "hash");
    VerityOptions o = new VerityOptions();
    o.hashOffset = hashOffset;
    // One-shot: FileChannel devices open at once (no native binding to pay); nothing interrupts them.
    try (FileDevice dev = FileDevice.openChannel(hash, false)) {
      VerityParams p;
      try {
        p = ParamsResolver.forCheck(o, null, dev);
      } catch (UnsupportedHashAlgorithmException e) {
        // A sound superblock naming a hash jverity cannot compute: still show what it stores.
        long offset = hashOffset == null ? 0 : hashOffset;
        VeritySuperblock sb = ParamsResolver.readSuperblock(dev, offset);
        spec.commandLine().getOut().print(json
            ? Json.write(Header.json(hash.toString(), sb, offset)) : Header.text(hash.toString(), sb));
        spec.commandLine().getErr().println("jverity: " + e.getMessage() + " (hash blocks and sizes not shown)");
        return ExitCode.OK;
      }
      TreeGeometry g = TreeGeometry.of(p);
      spec.commandLine().getOut().print(json ? Json.write(Header.json(null, hash.toString(), g, null)) : Header.text(hash.toString(), g, null));
    }
    return ExitCode.OK;
  }
}
