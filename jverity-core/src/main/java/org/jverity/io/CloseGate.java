package org.jverity.io;

import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the calls in flight on a closable resource, so that closing waits for them and every later
 * call fails. It keeps a read from using a file descriptor, or a mapping, that was freed underneath
 * it (a descriptor number may already belong to another file by then).
 *
 * <p>Use: {@code gate.enter(); try { ... } finally { gate.exit(); }}, and free the resource only
 * when {@link #close()} returns true.
 *
 * <p>Thread-safe. The count is striped ({@link LongAdder}), so readers on different cores do not
 * fight over one cache line on every read; only close takes a lock. Why it is exact enough: a call
 * increments, then reads {@code closed}; close writes {@code closed}, then sums. Both are volatile
 * accesses, so either the call sees {@code closed} (and backs out) or close sees the call in the
 * sum (and waits for it).
 */
final class CloseGate {
  private final String description;
  private final LongAdder inFlight = new LongAdder(); // calls admitted and not yet left
  private volatile boolean closed;
  private boolean
      freed; // guarded by this: the one closer that may free the resource has been chosen

  CloseGate(String description) {
    this.description = description;
  }

  /**
   * Admits one call.
   *
   * @throws IOException "{@code <description>: device is closed}" once closing has started
   */
  void enter() throws IOException {
    inFlight.increment();
    if (closed) {
      exit();
      throw new IOException(description + ": device is closed");
    }
  }

  /** Ends a call admitted by {@link #enter()}. */
  void exit() {
    inFlight.decrement();
    if (closed) {
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
    closed = true;
    boolean interrupted = false;
    boolean first;
    synchronized (this) {
      while (inFlight.sum() != 0) {
        try {
          wait(
              10); // a bounded wait: an exit between the sum and the wait cannot be missed for long
        } catch (InterruptedException e) {
          interrupted = true; // the resource must not be freed under a running call: keep waiting
        }
      }
      first = !freed;
      freed = true;
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return first;
  }
}
