package org.jverity.server;

import org.jverity.server.process.CaptiveRun;

/**
 * How a server's run ended; the command line maps it to its exit code (the server has none).
 *
 * @param end what ended it
 * @param commandStatus the exit status of --run's command when {@link End#COMMAND_EXITED}, passed
 *     on as it is ({@link CaptiveRun}); else 0
 */
public record Outcome(End end, int commandStatus) {
  /** What ended a run. */
  public enum End {
    /** SIGINT, SIGTERM, {@code jverity close} of the last export, or the parent exiting. */
    STOPPED,
    /** A block did not verify under --restart-on-corruption: a supervisor restarts the server. */
    RESTART,
    /** A block did not verify under --panic-on-corruption: stopped at once. */
    PANIC,
    /** --run's command exited by itself. */
    COMMAND_EXITED
  }

  public static final Outcome STOPPED = new Outcome(End.STOPPED, 0);
  public static final Outcome RESTART = new Outcome(End.RESTART, 0);
  public static final Outcome PANIC = new Outcome(End.PANIC, 0);

  /** --run's command exited by itself with {@code status}. */
  public static Outcome commandExited(int status) {
    return new Outcome(End.COMMAND_EXITED, status);
  }
}
