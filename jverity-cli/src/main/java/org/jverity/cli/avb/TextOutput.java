package org.jverity.cli.avb;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.jverity.cli.command.Io;
import org.jverity.io.AtomicOutput;

/** The text a reporting subcommand writes: on stdout, or in {@code --output} (avbtool's). */
final class TextOutput {
  private TextOutput() {}

  static void print(Io io, Path output, String text) throws IOException {
    if (output == null) {
      io.out().print(text);
      io.out().flush();
    } else {
      AtomicOutput.write(output, text.getBytes(StandardCharsets.UTF_8));
    }
  }
}
