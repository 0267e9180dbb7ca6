package org.jverity.io;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

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
  /** Hooks registered and not closed: a process may skip its shutdown only when there are none. */
  private static final AtomicInteger LIVE = new AtomicInteger();

  private final Thread thread;
  private final AtomicBoolean closed = new AtomicBoolean();

  private ExitHook(Thread thread) {
    this.thread = thread;
  }

  /** Runs {@code undo} if the process ends before {@link #close}; {@code what} names the thread. */
  public static ExitHook register(String what, Runnable undo) {
    Thread t = new Thread(undo, what);
    LIVE.incrementAndGet(); // before the hook: a halt that races with this sees it live
    Runtime.getRuntime().addShutdownHook(t);
    return new ExitHook(t);
  }

  /** Whether no hook is registered: nothing is half-made, so ending by halting loses nothing. */
  public static boolean none() {
    return LIVE.get() == 0;
  }

  /** Removes the hook; when the process is already ending, the hook runs (or ran) anyway. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(thread);
    } catch (IllegalStateException e) {
      // the process is ending: undo runs or ran, and must find the work finished or undo it
      return; // still counted: the process ends by its hooks
    }
    LIVE.decrementAndGet();
  }
}
