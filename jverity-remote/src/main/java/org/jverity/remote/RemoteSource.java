package org.jverity.remote;

import java.io.IOException;
import org.jverity.image.DeviceSource;
import org.jverity.io.BlockDevice;

/**
 * The {@link DeviceSource} that takes URLs: {@code http://} and {@code https://} (range requests),
 * {@code s3://bucket/key} (SigV4), anything else a local path. Every remote device it opens shares
 * one cache and one {@link RemoteStats}; close it after the devices.
 */
public final class RemoteSource implements DeviceSource, AutoCloseable {
  private final RemoteOptions options;
  private final RemoteStats stats = new RemoteStats();

  public RemoteSource(RemoteOptions options) {
    this.options = options;
  }

  public RemoteOptions options() {
    return options;
  }

  public RemoteStats stats() {
    return stats;
  }

  @Override
  public BlockDevice open(String location) throws IOException {
    if (!RemoteOptions.isRemote(location)) {
      return LOCAL.open(location);
    }
    throw new UnsupportedOperationException("remote devices: being built"); // wired at integration
  }

  /**
   * Local paths as {@link DeviceSource#LOCAL} says; two URLs are one object when they are equal.
   */
  @Override
  public boolean same(String a, String b) throws IOException {
    boolean ra = RemoteOptions.isRemote(a);
    boolean rb = RemoteOptions.isRemote(b);
    if (ra || rb) {
      return ra && rb && a.equals(b);
    }
    return LOCAL.same(a, b);
  }

  @Override
  public void close() {}
}
