package org.jverity.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.jverity.nbd.NbdServer;
import org.jverity.server.metrics.NbdMetrics;
import org.jverity.server.status.RuntimeDir;
import org.jverity.server.status.StatusSocket;
import org.jverity.text.Json;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.HashBlockCache;

/**
 * The exports a running {@link Server} serves now, by name, in the config's order, with what each
 * one owns besides its image: its status socket and its metrics. {@code jverity close} withdraws
 * one ({@link #withdraw}), a reload replaces them ({@link #reload}); both hold the one lock, so
 * they happen one at a time, and the server's close ({@link #close}) waits for either to finish.
 * Every export opens over the one hash block cache; the remote sources are made at the first URL.
 */
final class LiveExports implements AutoCloseable {
  private final Map<String, LiveExport> live = new LinkedHashMap<>();
  private final Object lock = new Object();
  private final Endpoint listening;
  private final ExportOpener opener;
  private final ServerLog log;
  private final BiConsumer<CorruptionMode, CorruptBlockException> failedClosed;
  private final ConfigReload reload; // null: none
  private final ToIntFunction<Exception> refusalCode; // a refused reload's exit code, as at start
  private final Runnable stopServer; // the last export's close: returns once everything is closed
  private final HashBlockCache cache;
  private volatile RemoteSources remotes; // made at the first remote export; closed after them
  private volatile NbdServer server; // null until the exports are served
  private volatile NbdMetrics metrics; // null without --metrics-port
  private Path statusDir; // null: no status sockets (stdin)
  private volatile Function<String, String> uriOf = name -> null; // once listening

  LiveExports(
      Endpoint listening,
      ExportOpener opener,
      ServerLog log,
      BiConsumer<CorruptionMode, CorruptBlockException> failedClosed,
      ConfigReload reload,
      ToIntFunction<Exception> refusalCode,
      Runnable stopServer) {
    this.listening = listening;
    this.opener = opener;
    this.log = log;
    this.failedClosed = failedClosed;
    this.reload = reload;
    this.refusalCode = refusalCode;
    this.stopServer = stopServer;
    this.cache = new HashBlockCache(listening.cacheSize());
  }

  /** Opens the exports of the start, in order; they are closed with the rest by {@link #close}. */
  List<ServedExport> open(List<ExportConfig> specs) throws IOException {
    List<ServedExport> served = new ArrayList<>();
    synchronized (lock) {
      for (ExportConfig spec : specs) {
        ServedExport e = open(spec);
        live.put(spec.name(), new LiveExport(e));
        served.add(e);
      }
    }
    return served;
  }

  /**
   * The exports are now served by {@code server}; with {@code metrics}, each export's counters and
   * the shared cache's are registered there.
   */
  void servedBy(NbdServer server, NbdMetrics metrics) {
    synchronized (lock) {
      this.server = server;
      this.metrics = metrics;
      if (metrics != null) {
        live.values().forEach(l -> registerMetrics(l.served));
        metrics.registerCache(cache::stats); // the one cache every export shares
      }
    }
  }

  /** Claims each export's status socket in {@code dir}; they close with {@link #closeStatus}. */
  void claimStatusSockets(Path dir) throws IOException {
    synchronized (lock) {
      statusDir = dir;
      for (LiveExport l : live.values()) {
        l.status = statusSocket(l);
      }
    }
  }

  /** Where the server listens: the URI of an export by its name (null for stdin). */
  void listeningAt(Function<String, String> uriOf) {
    this.uriOf = uriOf;
  }

  /**
   * {@code jverity close} of export {@code l}, from its status socket: withdraws it from the server
   * (its clients drained and disconnected) and closes its devices; the last export stops the whole
   * server, as SIGTERM does. Returns when done (for the last, once everything is closed).
   */
  private void withdraw(LiveExport l) {
    String name = l.served.spec.name();
    boolean last;
    synchronized (lock) {
      if (live.get(name) != l) {
        return; // a reload removed it meanwhile
      }
      last = live.size() == 1;
      if (!last) {
        live.remove(name);
        server.withdraw(name, Server.GRACE);
        unregisterMetrics(l.served);
        l.served.close();
      }
    }
    if (last) {
      log.line(
          "export "
              + ServerLog.display(name)
              + ": closed (jverity close), the last: stopping the server");
      stopServer.run();
      return;
    }
    log.line("export " + ServerLog.display(name) + ": closed (jverity close)");
    // its status socket closes itself once this returns
  }

  /**
   * Rereads the config (SIGHUP, {@code jverity reload}) and serves what it says: exports added,
   * removed or changed (their connections drained and closed, new clients get the new one), the
   * unchanged ones untouched with their connections. A config with a mistake, one whose [generic]
   * section changed (where and how the server listens takes a restart), or an export that cannot
   * open, refuses the reload whole: the old exports go on and the reason is one line in the log.
   * Returns the status socket's answer ({@link StatusSocket#RELOADED} and what changed, or {@link
   * StatusSocket#REFUSED}, the exit code and the log's line).
   */
  String reload() {
    synchronized (lock) {
      if (server == null) {
        return "error: not serving yet";
      }
      ConfigReload.Config next;
      try {
        next = reload.read();
        if (!next.listening().equals(listening)) {
          throw new ServerException(
              ServerException.Reason.CONFLICT,
              "[generic] changed (expected: only export sections change on reload; restart the"
                  + " server for the rest)");
        }
      } catch (IOException | RuntimeException e) {
        return refused(e);
      }
      Map<String, ExportConfig> before = new LinkedHashMap<>();
      live.forEach((name, l) -> before.put(name, l.served.spec));
      ConfigChanges changes = ConfigChanges.between(before, next.exports());
      Map<String, ServedExport> opened = new LinkedHashMap<>();
      List<StatusSocket> claimed = new ArrayList<>();
      Map<String, LiveExport> added = new LinkedHashMap<>();
      try {
        for (ExportConfig spec : changes.toOpen()) {
          opened.put(spec.name(), open(spec));
        }
        for (ExportConfig spec : changes.added()) {
          LiveExport l = new LiveExport(opened.get(spec.name()));
          if (statusDir != null) {
            l.status = statusSocket(l);
            claimed.add(l.status);
          }
          added.put(spec.name(), l);
        }
      } catch (IOException | RuntimeException e) {
        claimed.forEach(LiveExports::quietly);
        opened.values().forEach(ServedExport::close);
        return refused(e);
      }
      List<ServedExport> now = new ArrayList<>();
      for (ExportConfig spec : next.exports()) {
        ServedExport o = opened.get(spec.name());
        now.add(o != null ? o : live.get(spec.name()).served);
      }
      server.replaceExports(now.stream().map(e -> e.export).toList(), Server.GRACE);
      for (String name : changes.removed()) {
        LiveExport l = live.remove(name);
        quietly(l.status);
        unregisterMetrics(l.served);
        l.served.close();
      }
      for (ExportConfig spec : changes.changed()) {
        LiveExport l = live.get(spec.name());
        ServedExport old = l.served;
        unregisterMetrics(old);
        l.served = opened.get(spec.name()); // its status socket now reports the new one
        registerMetrics(l.served);
        old.close();
      }
      added.values().forEach(l -> registerMetrics(l.served));
      Map<String, LiveExport> ordered = new LinkedHashMap<>();
      for (ExportConfig spec : next.exports()) {
        ordered.put(
            spec.name(),
            added.containsKey(spec.name()) ? added.get(spec.name()) : live.get(spec.name()));
      }
      live.clear();
      live.putAll(ordered);
      String done = StatusSocket.RELOADED + changes.summary();
      log.line(done);
      return done;
    }
  }

  /** Says in the log why a reload was refused; the status socket's answer. */
  private String refused(Exception e) {
    String line = "config reload refused: " + e.getMessage();
    log.line(line);
    return StatusSocket.REFUSED + refusalCode.applyAsInt(e) + ": " + line;
  }

  /** Opens one export over the shared cache; the remote sources are made at the first URL. */
  private ServedExport open(ExportConfig spec) throws IOException {
    // Made only for a remote location: a server of local files loads nothing of jverity-remote.
    if (spec.anyRemote() && remotes == null) {
      remotes = new RemoteSources();
    }
    return ServedExport.open(spec, opener, cache, log, failedClosed, remotes);
  }

  /** Claims export {@code l}'s status socket, which reports whichever image {@code l} serves. */
  private StatusSocket statusSocket(LiveExport l) throws IOException {
    String name = l.served.spec.name();
    return StatusSocket.open(
        RuntimeDir.socket(statusDir, name),
        name,
        () -> StatusReport.text(l.served, uriOf.apply(name), server.connections()),
        () -> Json.line(StatusReport.json(l.served, uriOf.apply(name), server.connections())),
        () -> withdraw(l),
        reload == null ? null : this::reload);
  }

  private void registerMetrics(ServedExport e) {
    NbdMetrics m = metrics;
    if (m != null) {
      m.register(e.export);
      m.registerDeviceErrors(e.spec.name(), e.deviceErrors::truncated, e.deviceErrors::other);
      if (e.remote != null) {
        m.registerOrigin(e.spec.name(), e.remote.stats(), e.deviceErrors::anyChanged);
      }
    }
  }

  private void unregisterMetrics(ServedExport e) {
    NbdMetrics m = metrics;
    if (m != null) {
      m.unregister(e.export);
      m.unregisterDeviceErrors(e.spec.name());
      m.unregisterOrigin(e.spec.name());
    }
  }

  /** On the way out, after the server stopped: every status socket. */
  void closeStatus() {
    synchronized (lock) {
      live.values().forEach(l -> quietly(l.status));
    }
  }

  /** On the way out, last: every export, then the remote sources they read through. */
  @Override
  public void close() {
    synchronized (lock) {
      live.values().forEach(l -> l.served.close());
      live.clear();
    }
    RemoteSources r = remotes;
    if (r != null) {
      r.close();
    }
  }

  private static void quietly(AutoCloseable c) {
    if (c != null) {
      try {
        c.close();
      } catch (Exception e) {
        // closing on the way out: nothing left to tell
      }
    }
  }

  /**
   * An export served now, and its status socket, which stays when a reload changes the export (it
   * reports {@link #served}, whichever that is).
   */
  private static final class LiveExport {
    volatile ServedExport served;
    StatusSocket status; // null without status sockets

    LiveExport(ServedExport served) {
      this.served = served;
    }
  }
}
