package org.jverity.server;

import org.jverity.image.DeviceSource;
import org.jverity.remote.RemoteSource;
import org.jverity.remote.RemoteStats;

/**
 * The remote side of one served export whose data, hash or FEC device is at a URL: the {@link
 * RemoteSource} its devices are opened through, shared with the server's other exports of the same
 * options ({@link RemoteSources}: one cache directory, locked once) and closed by the server after
 * them. Thread-safe.
 */
final class RemoteExport {
  private final RemoteSource source;

  RemoteExport(RemoteSource source) {
    this.source = source;
  }

  DeviceSource source() {
    return source;
  }

  /**
   * The counters of the export's source: its own, unless other exports share its options (then
   * theirs too).
   */
  RemoteStats stats() {
    return source.stats();
  }
}
