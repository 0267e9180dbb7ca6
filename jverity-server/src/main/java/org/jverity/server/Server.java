package org.jverity.server;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.jverity.image.Locations;
import org.jverity.nbd.NbdEvents;
import org.jverity.nbd.NbdServer;
import org.jverity.nbd.NbdTls;
import org.jverity.nbd.NbdUri;
import org.jverity.text.Json;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.HashBlockCache;

/**
 * Runs an NBD server for {@code open} and {@code serve} until it is told to stop: opens the exports
 * over one hash block cache, claims their status sockets, listens (or serves stdin), prints one URI
 * per export on stdout, then waits. Under the command line's {@link JvmProcess}, SIGINT and SIGTERM
 * stop it cleanly (requests in flight finish, sockets are removed) with exit code 0, and so do
 * {@link #stop()} and {@code jverity close} of its last export and, under --exit-with-parent, the
 * parent exiting; --run's command exiting stops it with that command's status ({@link Service}).
 * {@code close} of another export withdraws just that one. With {@link #withReload}, SIGHUP (under
 * {@link JvmProcess}) and {@code jverity reload} reread the config and serve what it says ({@link
 * #reload()}). The process is the front end's ({@link #withProcess}): without one the server hooks
 * no signal and never ends the JVM, so it runs in a test's JVM as in its own. A reader failing
 * closed under --restart-on-corruption or --panic-on-corruption stops it with {@link
 * Outcome#RESTART} or {@link Outcome#PANIC}. One instance per run; the stop paths are thread-safe.
 */
public final class Server {
  /** How long requests in flight may take to finish on a clean stop. */
  public static final Duration GRACE = Duration.ofSeconds(30);

  /** How long a panic waits for requests in flight: barely, they fail closed anyway. */
  static final Duration PANIC_GRACE = Duration.ofMillis(200);

  private final List<ExportConfig> specs;
  private final Endpoint listening;
  private final PrintWriter out;
  private final ServerLog log;
  private final AtomicReference<CorruptionMode> failedClosed = new AtomicReference<>();
  private final CountDownLatch finished = new CountDownLatch(1); // the main thread has cleaned up
  private volatile NbdServer server;
  private volatile List<String> uris = List.of();
  private boolean jsonEvents;
  private boolean activated;
  private final Service service;
  private final ExportOpener opener;

  private ProcessHooks process = ProcessHooks.NONE;

  private final Map<Path, String> inputs; // the command's input files besides the exports', by role
  private volatile NbdMetrics metrics;
  private volatile CaptiveRun captive;

  /**
   * The exports served now, by name, in the config's order: changed by {@code jverity close} and by
   * a reload, which hold {@link #exportsLock} while they do (one at a time).
   */
  private final Map<String, LiveExport> live = new LinkedHashMap<>();

  private final Object exportsLock = new Object();
  private ConfigReload reload; // null: SIGHUP is the JVM's (it stops the server)
  private ToIntFunction<Exception> refusalCode; // a refused reload's exit code, as at start
  private HashBlockCache cache;
  private volatile RemoteSources remotes; // made at the first remote export; closed after them
  private Path statusDir; // null: no status sockets (stdin)
  private volatile Function<String, String> uriOf = name -> null; // once listening

  /**
   * @param opener how each export's image is opened and checked before the server listens
   * @param inputs the command's input files besides those of the exports (config, root hash file,
   *     signature), each with what it is: a pid file is never one of them
   */
  public Server(
      List<ExportConfig> specs,
      Endpoint listening,
      Service service,
      ExportOpener opener,
      Map<Path, String> inputs,
      PrintWriter out,
      PrintWriter err) {
    this.specs = List.copyOf(specs);
    this.listening = listening;
    this.service = service;
    this.opener = opener;
    this.inputs = inputs;
    this.out = out;
    this.log = new ServerLog(err);
  }

  /** Hooks the run into its process ({@link JvmProcess} for the command line); none by default. */
  public Server withProcess(ProcessHooks hooks) {
    process = hooks;
    return this;
  }

  /** --json: each URI as a "listening" event, one JSON object a line ({@link ServingEvents}). */
  public Server withJsonEvents(boolean on) {
    jsonEvents = on;
    return this;
  }

  /**
   * Listens on the socket systemd passed ({@link SocketActivation}) rather than where {@link
   * Endpoint} says; the caller has checked that nothing else says where. Prints no URI: whoever
   * passed the socket knows where it is.
   */
  public Server withSocketActivation(boolean on) {
    activated = on;
    return this;
  }

  /**
   * SIGHUP, and {@code jverity reload} through a status socket, reread the config through {@code
   * source} and serve what it says ({@link #reload()}); without this SIGHUP stops the server as
   * SIGTERM does. {@code refusalCode} is the exit code the front end gives a mistake at start,
   * which {@code jverity reload} exits with when the same mistake refuses a reload.
   */
  public Server withReload(ConfigReload source, ToIntFunction<Exception> refusalCode) {
    reload = source;
    this.refusalCode = refusalCode;
    return this;
  }

  /** Serves until stopped; returns how it ended (the command line maps it to an exit code). */
  public Outcome run() throws IOException {
    // Whose exit stops the server is decided now, before the pid file says it listens: a parent
    // that waits for that file and then exits must not be gone before the watch knows it.
    long parent = ParentWatch.parentPid();
    checkSocketDirectory();
    if (service.pidFile() != null) {
      PidFile.check(service.pidFile(), inputFiles());
    }
    cache = new HashBlockCache(listening.cacheSize());
    List<AutoCloseable> opened = new ArrayList<>(); // closed in reverse
    ProcessHooks.Installed hooks = ProcessHooks.Installed.NOTHING;
    try {
      opened.add(this::closeExports); // after everything else: the exports, then their remotes
      List<ServedExport> served = new ArrayList<>();
      for (ExportConfig spec : specs) {
        ServedExport e = open(spec);
        live.put(spec.name(), new LiveExport(e));
        served.add(e);
      }
      NbdTls tls = listening.tls().open();
      InetSocketAddress metricsAt = listening.metrics().address();
      NbdMetrics metrics = metricsAt == null ? null : new NbdMetrics();
      this.metrics = metrics;
      NbdEvents events = metrics == null ? log : NbdEvents.all(log, metrics);
      server =
          new NbdServer(
              served.stream().map(e -> e.export).toList(), listening.limits(), tls, events);
      if (metrics != null) {
        served.forEach(this::registerMetrics);
        metrics.registerCache(cache::stats); // the one cache every export shares
        InetSocketAddress m;
        try {
          m = metrics.start(metricsAt);
        } catch (IOException e) {
          metrics.close();
          throw new ServerException(
              ServerException.Reason.IO,
              "--metrics-port "
                  + listening.metrics().port()
                  + ": cannot listen: "
                  + e.getMessage());
        }
        opened.add(metrics);
        log.line("metrics: http://" + NbdUri.host(m) + ":" + m.getPort() + "/metrics");
      }
      if (!listening.stdin()) { // one process per connection there: status sockets would collide
        statusDir = RuntimeDir.create(RuntimeDir.resolve(listening.runtimeDir()));
        opened.add(this::closeStatusSockets);
        for (LiveExport l : live.values()) {
          l.status = statusSocket(l);
        }
      }
      opened.add(() -> server.shutdown(GRACE)); // closed before the exports
      uriOf = listen();
      uris = served.stream().map(e -> uriOf.apply(e.spec.name())).toList();
      if (service.pidFile() != null) {
        opened.addFirst(PidFile.write(service.pidFile())); // removed last
      }
      hooks = process.install(this);
      if (service.exitWithParent()) {
        opened.add(ParentWatch.start(parent, log, () -> server.shutdown(GRACE)));
      }
      if (listening.stdin()) {
        serveStdin();
      } else {
        if (service.run() == null && !activated) { // captive: the command's output is the output
          for (int i = 0; i < uris.size(); i++) {
            out.print(
                jsonEvents
                    ? ServingEvents.listening(served.get(i).spec.name(), uris.get(i))
                    : uris.get(i) + "\n");
          }
        }
        out.flush();
        if (service.run() != null) {
          captive =
              CaptiveRun.start(
                  service.run(),
                  CaptiveRun.environment(uris.getFirst(), served.getFirst().spec.name(), listening),
                  () -> server.shutdown(GRACE));
          opened.add(captive); // stopped first, when the server stops before it exits
        }
        server.awaitShutdown();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      hooks.stopReloads(); // no reload while closing
      for (int i = opened.size() - 1; i >= 0; i--) {
        try {
          opened.get(i).close();
        } catch (Exception e) {
          log.line("closing: " + e.getMessage());
        }
      }
      finished.countDown();
    }
    hooks.remove();
    return outcome();
  }

  /** How the run ends (so far): what {@link #run} returns, and a signal's exit status. */
  Outcome outcome() {
    CorruptionMode mode = failedClosed.get();
    CaptiveRun run = captive;
    if (mode == null && run != null && run.finishedByItself()) {
      return Outcome.commandExited(run.status());
    }
    return mode == null
        ? Outcome.STOPPED
        : mode == CorruptionMode.PANIC ? Outcome.PANIC : Outcome.RESTART;
  }

  /** Every input file, by what it is: the exports' and the command's. */
  private Map<Path, String> inputFiles() {
    Map<Path, String> all = new LinkedHashMap<>(inputs);
    for (ExportConfig spec : specs) {
      Map<Path, String> files = spec.inputFiles();
      Path data = Locations.file(spec.data());
      if (data != null) {
        all.put(data, files.get(data)); // the export's word for it wins
      }
      files.forEach(all::putIfAbsent);
    }
    return all;
  }

  /**
   * {@code jverity close} of export {@code e}, from its status socket: withdraws it from the server
   * (its clients drained and disconnected) and closes its devices; the last export stops the whole
   * server, as SIGTERM does. Returns when done (for the last, once everything is closed).
   */
  private void withdraw(LiveExport l) {
    String name = l.served.spec.name();
    boolean last;
    synchronized (exportsLock) {
      if (live.get(name) != l) {
        return; // a reload removed it meanwhile
      }
      last = live.size() == 1;
      if (!last) {
        live.remove(name);
        server.withdraw(name, GRACE);
        unregisterMetrics(l.served);
        l.served.close();
      }
    }
    if (last) {
      log.line(
          "export "
              + ServerLog.display(name)
              + ": closed (jverity close), the last: stopping the server");
      server.shutdown(GRACE);
      try {
        finished.await(GRACE.toSeconds() + 5, TimeUnit.SECONDS);
      } catch (InterruptedException x) {
        Thread.currentThread().interrupt();
      }
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
    synchronized (exportsLock) {
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
        claimed.forEach(Server::quietly);
        opened.values().forEach(ServedExport::close);
        return refused(e);
      }
      List<ServedExport> now = new ArrayList<>();
      for (ExportConfig spec : next.exports()) {
        ServedExport o = opened.get(spec.name());
        now.add(o != null ? o : live.get(spec.name()).served);
      }
      server.replaceExports(now.stream().map(e -> e.export).toList(), GRACE);
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
    return ServedExport.open(spec, opener, cache, log, this::failedClosed, remotes);
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
  private void closeStatusSockets() {
    synchronized (exportsLock) {
      live.values().forEach(l -> quietly(l.status));
    }
  }

  /** On the way out, last: every export, then the remote sources they read through. */
  private void closeExports() {
    synchronized (exportsLock) {
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

  /** Listens where the options say; the URI of an export by its name. */
  private Function<String, String> listen() throws IOException {
    if (listening.stdin()) {
      return name -> null; // the client started this process: it needs no URI
    }
    if (activated) {
      SocketActivation a = SocketActivation.take();
      server.listen(a.channel(), a::close);
      SocketAddress at = a.channel().getLocalAddress();
      log.line("listening on the socket passed by socket activation (fd 3): " + at);
      boolean tls = listening.tls().on();
      return name ->
          at instanceof UnixDomainSocketAddress u
              ? NbdUri.unix(u.getPath(), name)
              : NbdUri.tcp((InetSocketAddress) at, name, tls);
    }
    if (listening.socket() != null) {
      try {
        server.listenUnix(listening.socket());
      } catch (IOException e) {
        throw new ServerException(
            ServerException.Reason.IO,
            "--socket " + listening.socket() + ": cannot listen: " + e.getMessage());
      }
      return name -> NbdUri.unix(listening.socket(), name);
    }
    InetSocketAddress address = new InetSocketAddress(listening.bind(), listening.port());
    if (address.isUnresolved()) {
      throw new ServerException(
          ServerException.Reason.INVALID_VALUE,
          "--bind: "
              + listening.bind()
              + " (expected: an IP address or a host name that resolves)");
    }
    InetSocketAddress bound;
    try {
      bound = server.listen(address);
    } catch (BindException e) {
      throw new ServerException(
          ServerException.Reason.IO,
          "--bind "
              + listening.bind()
              + " --port "
              + listening.port()
              + ": cannot listen: "
              + e.getMessage());
    }
    boolean tls = listening.tls().on();
    return name -> NbdUri.tcp(bound, name, tls);
  }

  /** One connection on stdin/stdout, as {@code nbdkit -s}: stdout carries the protocol only. */
  private void serveStdin() {
    PrintStream protocol = System.out;
    System.setOut(System.err); // a stray print must not corrupt the protocol stream
    try {
      server.serve(
          new FileInputStream(FileDescriptor.in), new FileOutputStream(FileDescriptor.out));
    } finally {
      System.setOut(protocol);
    }
  }

  private void checkSocketDirectory() {
    Path socket = listening.socket();
    if (socket != null) {
      Path dir = socket.toAbsolutePath().getParent();
      if (dir == null || !Files.isDirectory(dir)) {
        throw new ServerException(
            ServerException.Reason.INVALID_VALUE,
            "--socket: " + socket + " (expected: a path in an existing directory)");
      }
    }
  }

  /** From a reader's thread, once per export that fails closed: stops the server. */
  private void failedClosed(CorruptionMode mode, CorruptBlockException cause) {
    if (failedClosed.compareAndSet(null, mode)) {
      NbdServer s = server;
      if (s != null) {
        Thread.ofPlatform()
            .name("jverity-fail-closed")
            .start(() -> s.shutdown(mode == CorruptionMode.PANIC ? PANIC_GRACE : GRACE));
      }
    }
  }

  /** Stops the server as SIGTERM does: requests in flight finish, then {@link #run} returns. */
  public void stop() {
    NbdServer s = server;
    if (s != null) {
      s.shutdown(GRACE);
    }
  }

  /** Waits until {@link #run} has closed everything (or the time is up). */
  boolean awaitFinished(long timeout, TimeUnit unit) throws InterruptedException {
    return finished.await(timeout, unit);
  }

  /** Whether this run rereads its config on SIGHUP and {@code jverity reload}. */
  boolean reloads() {
    return reload != null && !listening.stdin();
  }

  ServerLog log() {
    return log;
  }
}
