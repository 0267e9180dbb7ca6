package org.jverity.io;

/**
 * Work undone when the process ends before it is done (Ctrl-C's SIGINT, SIGTERM, an exit from
 * another thread): a shutdown hook that runs {@code undo} unless {@link #close} removed it first.
 * The one mechanism for what a command leaves half-made: a temporary output ({@link AtomicOutput})
 * and an image edited in place (avb's footer commands).
 *
 * <p>The hook runs while the command's own threads still run (the JVM stops them only after every
 * hook): {@code undo} must be safe against them, typically by taking the lock their commit takes
 * and leaving state that makes a later commit fail.
 */
public final class ExitHook implements AutoCloseable {
  private final Thread thread;

  private ExitHook(Thread thread) {
    this.thread = thread;
  }

  /** Runs {@code undo} if the process ends before {@link #close}; {@code what} names the thread. */
  public static ExitHook register(String what, Runnable undo) {
    Thread t = new Thread(undo, what);
    Runtime.getRuntime().addShutdownHook(t);
    return new ExitHook(t);
  }

  /** Removes the hook; when the process is already ending, the hook runs (or ran) anyway. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(thread);
    } catch (IllegalStateException e) {
      // the process is ending: undo runs or ran, and must find the work finished or undo it
    }
  }
}
