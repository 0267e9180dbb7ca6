package org.jverity.cli;

import org.jverity.cli.syntax.Syntax;

/**
 * The options every command takes, before its name or after it, as veritysetup's: {@code jverity -v
 * verify ...} and {@code jverity verify ... -v} are the same. {@code --help}, {@code --usage} and
 * {@code --version} are acted on by {@link Main} before any parsing; they are declared here so that
 * help lists them.
 */
final class GlobalOptions {
  /**
   * -v: "Command successful." on stdout after a success, the exit code's meaning after a failure.
   */
  boolean verbose;

  /** --debug: diagnostic lines on stderr, each starting with "# ". */
  boolean debug;

  /**
   * --veritysetup-exit-codes: exit with veritysetup's codes ({@link VeritysetupExitCodes}) on every
   * command.
   */
  boolean veritysetupExitCodes;

  /** --detailed-exit-codes: exit with jverity's codes ({@link ExitCode}) on every command. */
  boolean detailedExitCodes;

  static final Syntax<GlobalOptions> SYNTAX =
      Syntax.<GlobalOptions>group()
          .flag(
              "-v, --verbose",
              "Say \"Command successful.\" after a success and what the exit code means after a"
                  + " failure (as veritysetup -v).",
              g -> g.verbose = true)
          .flag(
              "--debug",
              "Print diagnostic lines (starting with #) on stderr, with the stack trace of a failure.",
              g -> g.debug = true)
          .flag(
              "--batch-mode",
              "Accepted for scripts written for cryptsetup: jverity never asks questions.",
              g -> {})
          .flag(
              "--veritysetup-exit-codes",
              "Exit with veritysetup's codes on every command (as"
                  + " JVERITY_EXIT_CODES=veritysetup does): 0 success, 1 failure or wrong parameters, 2 corrupted"
                  + " data or hash blocks, 4 missing or unreadable file. The default on veritysetup's own commands"
                  + " (format, verify, dump, open, close, status).",
              g -> g.veritysetupExitCodes = true)
          .flag(
              "--detailed-exit-codes",
              "Exit with jverity's detailed codes, one per kind of failure, on every"
                  + " command (as JVERITY_EXIT_CODES=detailed does). The default on jverity's own commands.",
              g -> g.detailedExitCodes = true)
          .flag("--usage", "Show a brief usage.", g -> {})
          .flag("-?, --help", "Show this help.", g -> {})
          .flag("-V, --version", "Print the version.", g -> {});
}
