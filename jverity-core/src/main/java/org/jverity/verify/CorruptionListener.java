package org.jverity.verify;

/**
 * Told about corruption as it is found. Called on whichever thread found it: the reading thread, a
 * hashing pool thread or a prefetch thread; must be quick, thread-safe and must not read from the
 * same image. A listener that throws is logged and ignored: it cannot change the outcome (the
 * corruption mode is applied before it is called).
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
