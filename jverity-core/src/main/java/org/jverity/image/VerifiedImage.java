package org.jverity.image;

import java.util.ArrayList;
import java.util.List;
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
  private final List<VerificationScheduler> others = new ArrayList<>(); // newScheduler's, guarded
  private boolean closed; // guarded by others

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
   * Another scheduler over this image's reader, on the same hashing pool, with inline limits and
   * counters of its own: to set one way of scheduling against another over one reader and one cache
   * (the read bench's worker-only mode, every inline limit 0, beside the defaults). Closed with the
   * image.
   *
   * @throws IllegalStateException once the image is closed
   */
  public VerificationScheduler newScheduler() {
    synchronized (others) {
      if (closed) {
        throw new IllegalStateException("the image is closed");
      }
      VerificationScheduler s = new VerificationScheduler(reader);
      others.add(s);
      return s;
    }
  }

  /**
   * Waits for reads in flight (through every scheduler), then closes the reader and the devices.
   * Once: later calls do nothing.
   */
  @Override
  public void close() {
    synchronized (others) {
      if (closed) {
        return;
      }
      closed = true;
    }
    scheduler.close();
    others.forEach(VerificationScheduler::close);
    reader.close();
    for (AutoCloseable c : devices) {
      Closing.quietly(c);
    }
  }
}
