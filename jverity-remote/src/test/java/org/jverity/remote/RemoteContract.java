package org.jverity.remote;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.jverity.remote.cache.ChunkCache;
import org.jverity.testing.BlockDeviceContract;

/**
 * The core's device contract for the remote devices (review §5.6): each test's device is a {@link
 * RemoteDevice} over a real origin (a local file) and a real chunk cache of its own.
 */
abstract class RemoteContract extends BlockDeviceContract {
  private final List<AutoCloseable> caches = new ArrayList<>();

  RemoteDevice remote(byte[] contents) throws IOException {
    return remote(file(contents));
  }

  /** The origin's name for {@code file}, which its device gives as its description. */
  static String location(Path file) {
    return "file://" + file;
  }

  RemoteDevice remote(Path file) throws IOException {
    RemoteStats stats = new RemoteStats();
    RemoteOptions options =
        RemoteOptions.DEFAULTS.withCache(tmp.resolve("cache-" + caches.size()), 64L << 20);
    ChunkCache cache = ChunkCache.open(options, stats);
    caches.add(cache);
    return new RemoteDevice(
        new FileOrigin(new FileOrigin.Stored(file), stats), cache, options, stats);
  }

  /** A read waits for its fetch interruptibly: an interrupt cancels that read, not the device. */
  @Override
  protected boolean interruptsCancelReads() {
    return true;
  }

  @AfterEach
  void closeCaches() throws Exception {
    for (AutoCloseable c : caches) {
      c.close();
    }
  }
}
