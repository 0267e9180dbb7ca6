package org.jverity.cli.avb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.jverity.cli.command.Io;

/** The text a reporting subcommand writes: on stdout, or in {@code --output} (avbtool's). */
final class TextOutput {
  private TextOutput() {}

  static void print(Io io, Path output, String text) throws IOException {
    if (output == null) {
      io.out().print(text);
      io.out().flush();
      return;
    }
    Path dir = output.toAbsolutePath().getParent();
    Path tmp = Files.createTempFile(dir, "." + output.getFileName() + ".", ".tmp");
    try {
      Files.writeString(tmp, text, StandardCharsets.UTF_8);
      Files.move(tmp, output, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
