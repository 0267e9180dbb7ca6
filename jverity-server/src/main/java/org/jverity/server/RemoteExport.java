package org.jverity.server;

import java.util.concurrent.atomic.AtomicBoolean;
import org.jverity.image.DeviceSource;
import org.jverity.remote.RemoteOptions;
import org.jverity.remote.RemoteSource;
import org.jverity.remote.RemoteStats;

/**
 * The remote side of one served export whose data, hash or FEC device is at a URL: the {@link
 * RemoteSource} its devices are opened through (one cache, one set of counters for the export, so
 * that {@code status} and the metrics tell each export's origin traffic apart). Only an export with
 * a remote location makes one: a server of local files loads nothing of jverity-remote.
 * Thread-safe.
 */
final class RemoteExport implements AutoCloseable {
  private final RemoteSource source;
  private final AtomicBoolean closed = new AtomicBoolean();

  private RemoteExport(RemoteSource source) {
    this.source = source;
  }

  /** For {@code spec}, which has a remote location: its options, or the defaults. */
  static RemoteExport of(ExportConfig spec) {
    RemoteOptions o = spec.remote() != null ? spec.remote() : RemoteOptions.DEFAULTS;
    return new RemoteExport(new RemoteSource(o));
  }

  DeviceSource source() {
    return source;
  }

  RemoteStats stats() {
    return source.stats();
  }

  /** After the export's devices; once ({@code jverity close} and the server's end both close). */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      source.close();
    }
  }
}
