package org.jverity.cli.serve;

import java.util.List;
import java.util.Set;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;

/**
 * Under socket activation the socket is given: like nbdkit, which refuses {@code -p}, {@code -U},
 * {@code -s} and {@code --run} then, {@code open} and {@code serve} refuse whatever else says where
 * to listen, and a command to run (it would find the variables meant for the server).
 */
final class ActivationConflicts {
  /** The options, as {@code open} spells them. */
  private static final List<String> OPTIONS =
      List.of("--socket", "--port", "--bind", "--stdin", "--run");

  /** The [generic] keys of {@code serve}'s config that say where to listen. */
  private static final List<String> KEYS = List.of("socket", "port", "bind");

  private static final String WHY =
      ": given under socket activation (LISTEN_PID is this process): it listens on the socket"
          + " passed";

  private ActivationConflicts() {}

  /** Refuses the first of the options given that conflicts. */
  static void refuseOptions(Set<String> given) {
    for (String o : OPTIONS) {
      if (given.contains(o)) {
        throw new CliException(ExitCode.USAGE, o + WHY + " (expected: no " + o + ")");
      }
    }
  }

  /** Refuses a [generic] key of {@code ini} that conflicts, naming file:line. */
  static void refuseKeys(IniFile ini) {
    for (IniFile.Section s : ini.sections()) {
      if (s.name().equals(ServeConfig.GENERIC)) {
        for (String k : KEYS) {
          IniFile.Entry e = s.entries().get(k);
          if (e != null) {
            throw new CliException(
                ExitCode.USAGE,
                ini.file() + ":" + e.line() + ": " + k + WHY + " (expected: no " + k + " key)");
          }
        }
      }
    }
  }
}
