package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.WholeNumber;
import org.jverity.format.UnsupportedHashAlgorithmException;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;
import org.jverity.image.Superblocks;
import org.jverity.io.FileDevice;

/**
 * {@code jverity dump}: a hash device's superblock, line for line {@code veritysetup dump}'s, or
 * the header and layout as JSON.
 */
public final class DumpCommand implements Command {
  Path hash;
  Long hashOffset;
  boolean json;

  public static final Syntax<DumpCommand> SYNTAX =
      Syntax.command(
              "dump", "Show the superblock of HASH, as veritysetup dump does.", DumpCommand::new)
          .parameter(
              "HASH", "Hash device (with the superblock).", (c, v) -> c.hash = FileName.parse(v))
          .option(
              "--hash-offset",
              "BYTES",
              "Byte offset of the superblock on HASH.",
              (c, v) -> c.hashOffset = WholeNumber.parseLong(v))
          .flag("--json", "Print the header and layout as JSON.", c -> c.json = true)
          .example("Show the parameters data.hash's superblock holds:", "jverity dump data.hash");

  @Override
  public int run(Io io) throws IOException {
    Checks.requireFile(hash, "hash");
    // One-shot: FileChannel devices open at once (no native binding to pay); nothing interrupts
    // them.
    long offset = hashOffset == null ? 0 : hashOffset;
    try (FileDevice dev = FileDevice.openChannel(hash, false)) {
      VerityParams p;
      try {
        p = Superblocks.params(dev, offset);
      } catch (UnsupportedHashAlgorithmException e) {
        // A sound superblock naming a hash jverity cannot compute: still show what it stores.
        VeritySuperblock sb = Superblocks.read(dev, offset);
        if (json) {
          io.result(Header.json(hash.toString(), sb, offset));
        } else {
          io.out().print(Header.text(hash.toString(), sb));
        }
        io.err().println("jverity: " + e.getMessage() + " (hash blocks and sizes not shown)");
        return ExitCode.OK;
      }
      if (json) {
        io.result(Header.json(null, hash.toString(), p, null));
      } else {
        io.out().print(Header.text(hash.toString(), p, null));
      }
    }
    return ExitCode.OK;
  }
}
