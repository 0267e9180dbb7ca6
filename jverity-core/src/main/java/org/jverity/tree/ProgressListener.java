package org.jverity.tree;

/**
 * Told how many input bytes a long operation has hashed so far. Called from worker threads,
 * concurrently: implementations must be thread-safe and cheap.
 */
@FunctionalInterface
public interface ProgressListener {
  ProgressListener NONE = bytes -> {};

  /** {@code bytes} more bytes were hashed. */
  void advanced(long bytes);
}
