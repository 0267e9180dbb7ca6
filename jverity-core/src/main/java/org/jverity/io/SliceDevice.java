package org.jverity.io;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A range of another device seen as a device of its own: a partition of a disk image (a DDI's data
 * or verity partition), offset 0 being the range's first byte. Reads past the range's end are an
 * EOFException even where the device goes on, so a partition's reader never sees its neighbour's
 * bytes. Owns the device it slices: {@link #close()} closes it. Thread-safe if the device is.
 */
public final class SliceDevice extends FilterBlockDevice {
  private final BlockDevice device;
  private final long start;
  private final long length;
  private final String description;

  private SliceDevice(BlockDevice device, long start, long length, String description) {
    this.device = device;
    this.start = start;
    this.length = length;
    this.description = description;
  }

  /**
   * {@code length} bytes of {@code device} from {@code start}, named {@code description} in
   * messages.
   *
   * @throws EOFException when the device is shorter than the range
   */
  public static SliceDevice of(BlockDevice device, long start, long length, String description)
      throws IOException {
    Objects.requireNonNull(description, "description");
    if (start < 0 || length < 0) {
      throw new IllegalArgumentException("range: " + start + "+" + length);
    }
    long size = device.size();
    if (start > size - length) {
      throw new EOFException(
          description
              + ": bytes "
              + start
              + ".."
              + (start + length)
              + " of "
              + device.description()
              + " (expected: within its "
              + size
              + " bytes)");
    }
    return new SliceDevice(device, start, length, description);
  }

  @Override
  protected BlockDevice delegate() {
    return device;
  }

  /** Where the range starts on the device. */
  public long start() {
    return start;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public long size() {
    return length;
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    device.readFully(check(offset, dst.remaining()), dst);
  }

  @Override
  public void readFully(long offset, byte[] dst, int dstOffset, int len) throws IOException {
    Objects.checkFromIndexSize(dstOffset, len, dst.length);
    device.readFully(check(offset, len), dst, dstOffset, len);
  }

  @Override
  public void reread(long offset, ByteBuffer dst) throws IOException {
    device.reread(check(offset, dst.remaining()), dst);
  }

  @Override
  public void prefetch(long offset, long len) {
    if (offset >= 0 && len >= 0 && offset <= length) {
      device.prefetch(start + offset, Math.min(len, length - offset));
    }
  }

  /**
   * The device offset of {@code offset}, after checking the range holds {@code len} bytes there.
   */
  private long check(long offset, int len) throws EOFException {
    if (offset < 0 || offset > length - len) {
      throw new EOFException(
          description
              + ": read of "
              + len
              + " bytes at "
              + offset
              + " (expected: end <= size "
              + length
              + ")");
    }
    return start + offset;
  }

  @Override
  public String toString() {
    return "SliceDevice[" + description + ": " + start + "+" + length + " of " + device + "]";
  }
}
