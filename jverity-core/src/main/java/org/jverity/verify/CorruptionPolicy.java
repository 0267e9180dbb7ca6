package org.jverity.verify;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jverity.tree.Corruption;

/**
 * The one place a corruption is counted, logged and ruled on ({@link CorruptionMode}): the kernel's
 * {@code verity_handle_err}. The mode is applied before the listener hears of it, and a listener
 * that throws cannot change the outcome. Thread-safe.
 */
final class CorruptionPolicy {
  private static final System.Logger LOG = System.getLogger(VerifiedReader.class.getName());

  private final CorruptionMode mode;
  private final CorruptionListener listener;
  private final AtomicLong corruptions = new AtomicLong();
  private final List<CorruptBlockException> first = new ArrayList<>(); // guarded by itself
  private final AtomicReference<CorruptBlockException> failedClosed = new AtomicReference<>();

  CorruptionPolicy(CorruptionMode mode, CorruptionListener listener) {
    this.mode = mode;
    this.listener = listener;
  }

  /**
   * Rules on a block that did not verify after recheck and repair: returns only in IGNORE mode (the
   * caller then returns the bytes as read); otherwise throws {@code e}.
   */
  void handle(CorruptBlockException e) throws CorruptBlockException {
    long n = corruptions.incrementAndGet();
    if (n <= Corruption.MAX_REPORTED) {
      synchronized (first) {
        first.add(e);
      }
      LOG.log(System.Logger.Level.WARNING, report(e));
    }
    boolean closedNow =
        mode.failsClosed() && failedClosed.compareAndSet(null, e); // before anyone hears
    notify(() -> listener.corrupted(e));
    if (closedNow) {
      notify(() -> listener.failedClosed(mode, e));
    }
    if (mode != CorruptionMode.IGNORE) {
      throw e;
    }
  }

  /**
   * The corruption's one log line: its message, then what left the mismatch standing (a recheck or
   * a repair that failed), so that a repairer's failure is logged once, with the corruption.
   */
  static String report(CorruptBlockException e) {
    StringBuilder b = new StringBuilder(e.getMessage());
    for (Throwable s : e.getSuppressed()) {
      b.append("; ").append(s.getClass().getSimpleName()).append(": ").append(s.getMessage());
    }
    return b.toString();
  }

  private static void notify(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException | Error x) {
      LOG.log(System.Logger.Level.ERROR, "corruption listener failed (ignored)", x);
    }
  }

  /** Throws when a fail-closed mode has seen a corruption. */
  void checkOpen() throws FailedClosedException {
    CorruptBlockException e = failedClosed.get();
    if (e != null) {
      throw new FailedClosedException(mode, e);
    }
  }

  boolean failedClosed() {
    return failedClosed.get() != null;
  }

  long count() {
    return corruptions.get();
  }

  List<CorruptBlockException> first() {
    synchronized (first) {
      return List.copyOf(first);
    }
  }
}
