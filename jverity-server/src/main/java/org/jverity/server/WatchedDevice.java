package org.jverity.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.jverity.image.Locations;
import org.jverity.io.BlockDevice;
import org.jverity.io.FilterBlockDevice;

/**
 * A served export's data or hash device, telling its {@link DeviceErrors} of every read that fails
 * (a file truncated under the server, a disk error, an origin that failed or whose object changed);
 * the failure still reaches the reader, so the client gets EIO and never unverified bytes.
 * Thread-safe as the device it wraps.
 */
final class WatchedDevice extends FilterBlockDevice {
  private final BlockDevice device;

  /** Where it was opened from: a path, or a URL ({@link Locations}). */
  final String location;

  /** Whether {@link #location} is a URL: its failures are the origin's, not a file's. */
  final boolean remote;

  /** "data" or "hash": what the file is to the export. */
  final String role;

  /** Its size when it was opened: what a truncation is measured against. */
  final long openedSize;

  private final DeviceErrors errors;

  WatchedDevice(BlockDevice device, String location, String role, DeviceErrors errors)
      throws IOException {
    this.device = device;
    this.location = location;
    this.remote = Locations.isRemote(location);
    this.role = role;
    this.openedSize = device.size();
    this.errors = errors;
  }

  @Override
  protected BlockDevice delegate() {
    return device;
  }

  @Override
  public String description() {
    return device.description();
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    int length = dst.remaining();
    try {
      device.readFully(offset, dst);
    } catch (IOException e) {
      errors.failed(this, offset + length, e);
      throw e;
    }
  }

  @Override
  public void readFully(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    try {
      device.readFully(offset, dst, dstOffset, length);
    } catch (IOException e) {
      errors.failed(this, offset + length, e);
      throw e;
    }
  }

  @Override
  public void reread(long offset, ByteBuffer dst) throws IOException {
    int length = dst.remaining();
    try {
      device.reread(offset, dst);
    } catch (IOException e) {
      errors.failed(this, offset + length, e);
      throw e;
    }
  }

  @Override
  public String toString() {
    return "WatchedDevice[" + device + "]";
  }
}
