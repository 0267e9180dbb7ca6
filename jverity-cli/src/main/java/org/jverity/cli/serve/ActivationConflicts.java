package org.jverity.cli.serve;

import java.io.PrintWriter;
import java.util.List;
import java.util.Set;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;

/**
 * Under socket activation the socket is given: like nbdkit, which refuses {@code -p}, {@code -U},
 * {@code -s} and {@code --run} then, {@code open} and {@code serve} refuse the options that say
 * where else to listen, and a command to run (it would find the variables meant for the server).
 * The config's {@code bind}, {@code port} and {@code socket} keys are not refused but ignored, each
 * said in one line: a config describes the service however it is started (the same file for a unit
 * that listens itself and for one a socket unit starts, or for {@code nbdinfo --list -- [ jverity
 * serve CONFIG ]}), as sshd ignores its config's Port when inetd passes the connection.
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

  /**
   * {@code ini} without the [generic] keys that say where to listen; each one present is said in
   * one line on {@code err}, unless {@code err} is null (a reload, said at the start already).
   */
  static IniFile withoutListeningKeys(IniFile ini, PrintWriter err) {
    if (err != null) {
      for (IniFile.Section s : ini.sections()) {
        if (s.name().equals(ServeConfig.GENERIC)) {
          for (IniFile.Entry e : s.entries().values()) {
            if (KEYS.contains(e.key())) {
              err.println(
                  "jverity: "
                      + ini.at(e.line())
                      + e.key()
                      + ": ignored under socket activation (LISTEN_PID is this process): it"
                      + " listens on the socket passed");
            }
          }
        }
      }
    }
    return ini.without(ServeConfig.GENERIC, KEYS);
  }
}
