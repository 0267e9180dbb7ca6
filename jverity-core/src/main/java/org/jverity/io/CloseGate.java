package org.jverity.io;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the calls in flight on a closable resource, so that closing waits for them and every
 * later call fails. It keeps a read from using a file descriptor, or a mapping, that was freed
 * underneath it (a descriptor number may already belong to another file by then).
 *
 * <p>Use: {@code gate.enter(); try { ... } finally { gate.exit(); }}, and free the resource only
 * when {@link #close()} returns true.
 *
 * <p>Thread-safe. Entering and leaving cost one atomic add each; only close takes a lock.
 */
final class CloseGate {
  /** Set once closing starts; the bits below it count calls in flight. */
  private static final long CLOSED = 1L << 62;

  private final String description;
  /** {@link #CLOSED} bit plus the number of calls in flight. */
  private final AtomicLong state = new AtomicLong();

  CloseGate(String description) {
    this.description = description;
  }

  /**
   * Admits one call.
   *
   * @throws IOException "{@code <description>: device is closed}" once closing has started
   */
  void enter() throws IOException {
    if ((state.getAndIncrement() & CLOSED) != 0) {
      exit();
      throw new IOException(description + ": device is closed");
    }
  }

  /** Ends a call admitted by {@link #enter()}. */
  void exit() {
    if (state.decrementAndGet() == CLOSED) {
      synchronized (this) {
        notifyAll(); // a closer may be waiting for the last call to leave
      }
    }
  }

  /**
   * Refuses new calls, then waits (ignoring interrupts, whose flag it restores) until none is in
   * flight.
   *
   * @return true for the one caller that closed the gate and must now free the resource
   */
  boolean close() {
    long s;
    do {
      s = state.get();
    } while ((s & CLOSED) == 0 && !state.compareAndSet(s, s | CLOSED));
    boolean first = (s & CLOSED) == 0;
    boolean interrupted = false;
    synchronized (this) {
      while (state.get() != CLOSED) {
        try {
          wait();
        } catch (InterruptedException e) {
          interrupted = true; // the resource must not be freed under a running call: keep waiting
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return first;
  }
}
