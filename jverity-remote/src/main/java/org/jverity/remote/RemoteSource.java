package org.jverity.remote;

import java.io.IOException;
import java.lang.System.Logger.Level;
import org.jverity.image.DeviceSource;
import org.jverity.io.BlockDevice;
import org.jverity.remote.cache.ChunkCache;

/**
 * The {@link DeviceSource} that takes URLs: {@code http://} and {@code https://} (range requests),
 * {@code s3://bucket/key} (SigV4), anything else a local path. Every remote device it opens shares
 * one cache and one {@link RemoteStats}; close it after the devices.
 */
public final class RemoteSource implements DeviceSource, AutoCloseable {
  private final RemoteOptions options;
  private final RemoteStats stats = new RemoteStats();
  private ChunkCache cache; // opened with the first device; guarded by this

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

  /**
   * A device over {@code origin} (which it then owns), sharing this source's cache and counters.
   * The cache opens with the first device: a cache directory is locked from then on.
   */
  public RemoteDevice device(Origin origin) throws IOException {
    return new RemoteDevice(origin, cache(), options, stats);
  }

  private synchronized ChunkCache cache() throws IOException {
    if (cache == null) {
      cache = ChunkCache.open(options, stats);
    }
    return cache;
  }

  /** Closes the cache (unlocking its directory); the devices must be closed first. */
  @Override
  public synchronized void close() {
    if (cache != null) {
      try {
        cache.close();
      } catch (IOException e) {
        System.getLogger(RemoteSource.class.getName())
            .log(Level.WARNING, "closing the cache: " + e.getMessage());
      }
      cache = null;
    }
  }
}
