package org.jverity.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.jverity.tree.Area;
import org.jverity.verify.CorruptBlockException;

/** The server log names blocks as every other message does, and stops after the kernel's cap. */
class ServerLogTest {
  private final StringWriter text = new StringWriter();
  private final ServerLog log = new ServerLog(new PrintWriter(text));

  @Test
  void namesCorruptedAndCorrectedBlocks() {
    log.corrupted("root", new CorruptBlockException("d", Area.DATA, 1234, -1), false);
    log.corrupted("", new CorruptBlockException("h", Area.HASH, 12, 0), true);
    log.corrected("root", Area.DATA, 5);
    log.corrected("root", Area.HASH, 9);
    assertThat(text.toString().lines())
        .containsExactly(
            "jverity: export root: data block 1234 is corrupted",
            "jverity: export (default): hash block 12 (level 0) is corrupted (ignored)",
            "jverity: export root: data block 5 corrected with FEC",
            "jverity: export root: hash block 9 corrected with FEC");
  }

  @Test
  void goesQuietAboutAnExportAfterAHundredCorruptions() {
    for (int i = 0; i < 150; i++) {
      log.corrupted("root", new CorruptBlockException("d", Area.DATA, i, -1), false);
    }
    assertThat(text.toString().lines())
        .hasSize(101)
        .last()
        .isEqualTo(
            "jverity: export root: more corrupted blocks, not logged (jverity status counts them)");
  }
}
