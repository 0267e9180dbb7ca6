package org.jverity.cli;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/**
 * Keeps the library's log quiet on the command line, which reports corruption itself, one line
 * each. A process ({@link Main#main}) names this class as java.util.logging's configuration, read
 * when something first logs: starting java.util.logging looks for a logger finder on the class
 * path, which opens the 12 MB jar (~15 ms) in a command that never logs. A caller running commands
 * in its own process, where logging may have started already, gets the level set at once.
 */
public final class QuietLibraryLogs {
  static final String CONFIG_CLASS_PROPERTY = "java.util.logging.config.class";

  /**
   * java.util.logging's defaults (its logging.properties), with the library's loggers off but the
   * chunk cache's warnings, one line each as jverity says things: a cache directory it cannot use,
   * said once at the start of a process that then runs without it.
   */
  private static final String CONFIG =
      """
      handlers = java.util.logging.ConsoleHandler
      .level = INFO
      java.util.logging.ConsoleHandler.level = INFO
      java.util.logging.ConsoleHandler.formatter = java.util.logging.SimpleFormatter
      java.util.logging.SimpleFormatter.format = jverity: %5$s%n
      org.jverity.level = OFF
      org.jverity.remote.cache.level = WARNING
      """;

  /**
   * The library's loggers' parent, once set here. Held: java.util.logging keeps loggers weakly, and
   * a level set on one that was collected is lost (a long demo then printed the library's
   * warnings).
   */
  private static Logger held;

  /** Called by java.util.logging when it starts, when a process named this class. */
  public QuietLibraryLogs() throws IOException {
    LogManager.getLogManager()
        .readConfiguration(new ByteArrayInputStream(CONFIG.getBytes(StandardCharsets.UTF_8)));
  }

  /** For a process about to run one command line: quiet from whenever logging starts. */
  static void whenLoggingStarts() {
    System.setProperty(CONFIG_CLASS_PROPERTY, QuietLibraryLogs.class.getName());
  }

  /** Before each command line: nothing to do if the process named this class, else quiet now. */
  static synchronized void now() {
    if (QuietLibraryLogs.class.getName().equals(System.getProperty(CONFIG_CLASS_PROPERTY))) {
      return;
    }
    if (held == null) {
      held = Logger.getLogger("org.jverity");
    }
    held.setLevel(Level.OFF);
  }
}
