package org.jverity.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.jverity.io.BlockDevice;
import org.jverity.io.FilterBlockDevice;

/**
 * A device that forwards to another and changes one behaviour in {@link #read}, which every read
 * and reread goes through; decorators for tests, on the main code's {@link FilterBlockDevice}.
 */
public abstract class DeviceWrapper extends FilterBlockDevice {
  protected final BlockDevice in;

  protected DeviceWrapper(BlockDevice in) {
    this.in = in;
  }

  @Override
  protected BlockDevice delegate() {
    return in;
  }

  @Override
  public String description() {
    return in.description();
  }

  @Override
  public final void readFully(long offset, ByteBuffer dst) throws IOException {
    read(offset, dst);
  }

  /** A reread is a read here: a flaky or failing device is so for the recheck too. */
  @Override
  public final void reread(long offset, ByteBuffer dst) throws IOException {
    read(offset, dst);
  }

  /** The changed behaviour; by default forwards. */
  protected void read(long offset, ByteBuffer dst) throws IOException {
    in.readFully(offset, dst);
  }

  /** Counts reads. */
  public static final class Counting extends DeviceWrapper {
    public final java.util.concurrent.atomic.AtomicLong reads =
        new java.util.concurrent.atomic.AtomicLong();

    public Counting(BlockDevice in) {
      super(in);
    }

    @Override
    protected void read(long offset, ByteBuffer dst) throws IOException {
      reads.incrementAndGet();
      in.readFully(offset, dst);
    }
  }

  /** Sleeps before each read (uninterruptibly, like a disk), so requests stay in flight. */
  public static final class Slow extends DeviceWrapper {
    private final long nanos;

    public Slow(BlockDevice in, long micros) {
      super(in);
      this.nanos = micros * 1000;
    }

    @Override
    protected void read(long offset, ByteBuffer dst) throws IOException {
      long until = System.nanoTime() + nanos;
      while (System.nanoTime() < until) {
        java.util.concurrent.locks.LockSupport.parkNanos(until - System.nanoTime());
      }
      in.readFully(offset, dst);
    }
  }

  /**
   * Flips a byte in what the first {@code times} reads covering {@code at} return (a torn or flaky
   * read).
   */
  public static final class Flaky extends DeviceWrapper {
    private final long at;
    private final java.util.concurrent.atomic.AtomicInteger left;

    public Flaky(BlockDevice in, long at, int times) {
      super(in);
      this.at = at;
      this.left = new java.util.concurrent.atomic.AtomicInteger(times);
    }

    @Override
    protected void read(long offset, ByteBuffer dst) throws IOException {
      int start = dst.position();
      int n = dst.remaining();
      in.readFully(offset, dst);
      if (at >= offset && at < offset + n && left.getAndDecrement() > 0) {
        int i = start + (int) (at - offset);
        dst.put(i, (byte) (dst.get(i) ^ 0x40));
      }
    }
  }

  /** Fails every read that touches {@code [from, to)} with an IOException. */
  public static final class Failing extends DeviceWrapper {
    private final long from;
    private final long to;

    public Failing(BlockDevice in, long from, long to) {
      super(in);
      this.from = from;
      this.to = to;
    }

    @Override
    protected void read(long offset, ByteBuffer dst) throws IOException {
      if (offset < to && offset + dst.remaining() > from) {
        throw new IOException(description() + ": injected I/O error at " + offset);
      }
      in.readFully(offset, dst);
    }
  }

  /** Refuses reads after {@link #close()}, as a real device does. */
  public static final class Closable extends DeviceWrapper {
    private volatile boolean closed;

    public Closable(BlockDevice in) {
      super(in);
    }

    @Override
    protected void read(long offset, ByteBuffer dst) throws IOException {
      if (closed) {
        throw new IOException(description() + ": device is closed");
      }
      in.readFully(offset, dst);
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
