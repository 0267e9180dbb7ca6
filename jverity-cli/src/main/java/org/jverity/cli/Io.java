package org.jverity.cli;

import java.io.PrintWriter;
import java.util.Set;

/**
 * What a running command is given besides its options: where to write, and the global switches.
 *
 * @param out standard output (results)
 * @param err standard error (messages, progress)
 * @param given the options the command line gave, by their longest name ({@code "--port"}), to
 *     tell a default from the same value given
 * @param debug whether {@code --debug} asks for diagnostic lines on stderr (each starts with "# ")
 */
record Io(PrintWriter out, PrintWriter err, Set<String> given, boolean debug) {
  Io {
    given = Set.copyOf(given);
  }

  /** A diagnostic line on stderr, under --debug only. */
  void debug(String line) {
    if (debug) {
      err.println("# " + line);
    }
  }
}
