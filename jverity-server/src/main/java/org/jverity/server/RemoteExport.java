package org.jverity.server;

import org.jverity.image.DeviceSource;
import org.jverity.remote.RemoteSource;
import org.jverity.remote.RemoteStats;

/**
 * The remote side of one served export whose data, hash or FEC device is at a URL: the {@link
 * RemoteSource} its devices are opened through, shared with the server's other exports of the same
 * options ({@link RemoteSources}: one cache directory, locked once) and closed by the server after
 * them; its counters are its own. Thread-safe.
 */
final class RemoteExport {
  private final DeviceSource source;
  private final RemoteStats stats = new RemoteStats();

  /**
   * @param export the export's name, for the log line of each object its devices reopen ({@code
   *     --on-change reopen}): which export, which object, what changed
   */
  RemoteExport(RemoteSource shared, String export, ServerLog log) {
    this.source =
        shared.counting(
            stats,
            (before, now) ->
                log.line(
                    "export "
                        + ServerLog.display(export)
                        + ": "
                        + before.location()
                        + " changed since open ("
                        + before.changesTo(now)
                        + "): reopened (--on-change reopen), reading the new object"));
  }

  DeviceSource source() {
    return source;
  }

  /**
   * This export's own counters: its devices' requests, bytes, hits and misses, and the evictions
   * its fetches caused in the shared cache; not the other exports'.
   */
  RemoteStats stats() {
    return stats;
  }
}
