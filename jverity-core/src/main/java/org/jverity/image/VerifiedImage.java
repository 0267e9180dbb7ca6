package org.jverity.image;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jverity.verify.VerificationScheduler;
import org.jverity.verify.VerifiedReader;

/**
 * An opened image that verifies what it reads: the reader, the scheduler that splits requests over
 * the hashing pool, and the devices under them, all owned. Thread-safe (the reader and scheduler
 * are).
 */
public final class VerifiedImage implements AutoCloseable {
  private final TrustedRoot trusted;
  private final VerifiedReader reader;
  private final VerificationScheduler scheduler;
  private final List<AutoCloseable> devices; // hash, data, then FEC parity
  private final AtomicBoolean closed = new AtomicBoolean();

  VerifiedImage(
      TrustedRoot trusted,
      VerifiedReader reader,
      VerificationScheduler scheduler,
      List<AutoCloseable> devices) {
    this.trusted = trusted;
    this.reader = reader;
    this.scheduler = scheduler;
    this.devices = List.copyOf(devices);
  }

  public TrustedRoot trusted() {
    return trusted;
  }

  public VerifiedReader reader() {
    return reader;
  }

  /** What to read from: requests verified in parallel pieces. */
  public VerificationScheduler scheduler() {
    return scheduler;
  }

  /**
   * Waits for reads in flight, then closes the reader and the devices. Once: later calls do
   * nothing.
   */
  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    scheduler.close();
    reader.close();
    for (AutoCloseable c : devices) {
      Closing.quietly(c);
    }
  }
}
