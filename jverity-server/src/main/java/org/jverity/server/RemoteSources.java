package org.jverity.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.remote.RemoteOptions;
import org.jverity.remote.RemoteSource;

/**
 * The server's remote sources, one per distinct {@link RemoteOptions} its exports give: exports
 * with the same options (the usual case: [generic]'s) share one source, so one cache directory is
 * opened and locked once. Made only when an export has a remote location; closed after every
 * export. Thread-safe.
 */
final class RemoteSources implements AutoCloseable {
  private final Map<RemoteOptions, RemoteSource> sources = new LinkedHashMap<>(); // guarded by this

  /**
   * The remote side of {@code spec}, which has a remote location; its reopens said on {@code log}.
   */
  synchronized RemoteExport of(ExportConfig spec, ServerLog log) {
    RemoteOptions o = spec.remote() != null ? spec.remote() : RemoteOptions.DEFAULTS;
    return new RemoteExport(sources.computeIfAbsent(o, RemoteSource::new), spec.name(), log);
  }

  /** Closes every source (their caches), after the exports' devices. */
  @Override
  public void close() {
    List<RemoteSource> all;
    synchronized (this) {
      all = new ArrayList<>(sources.values());
      sources.clear();
    }
    all.forEach(RemoteSource::close);
  }
}
