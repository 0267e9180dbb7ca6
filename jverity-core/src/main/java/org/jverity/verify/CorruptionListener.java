package org.jverity.verify;

/**
 * Told about corruption as it is found. Called on the reading thread; must be quick and must not
 * read from the same reader.
 */
public interface CorruptionListener {
  CorruptionListener NONE = new CorruptionListener() {};

  /** A block did not verify (counted, whatever the mode). */
  default void corrupted(CorruptBlockException e) {}

  /**
   * The reader has failed closed (modes RESTART and PANIC): every read from now on fails. Called
   * once, with the corruption that caused it; a server exits here with its own code.
   */
  default void failedClosed(CorruptionMode mode, CorruptBlockException cause) {}
}
