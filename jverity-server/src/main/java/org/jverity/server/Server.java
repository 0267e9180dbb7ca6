package org.jverity.server;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
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
import org.jverity.server.metrics.NbdMetrics;
import org.jverity.server.process.CaptiveRun;
import org.jverity.server.process.JvmProcess;
import org.jverity.server.process.ParentWatch;
import org.jverity.server.process.PidFile;
import org.jverity.server.process.SocketActivation;
import org.jverity.server.status.RuntimeDir;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.CorruptionMode;

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
  private volatile LiveExports exports; // null until run opens them
  private boolean jsonEvents;
  private boolean activated;
  private final Service service;
  private final ExportOpener opener;
  private ProcessHooks process = ProcessHooks.NONE;
  private final Map<Path, String> inputs; // the command's input files besides the exports', by role
  private volatile CaptiveRun captive;
  private ConfigReload reload; // null: SIGHUP is the JVM's (it stops the server)
  private ToIntFunction<Exception> refusalCode; // a refused reload's exit code, as at start

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
    Listener listener = new Listener(listening, activated, log);
    listener.checkSocketDirectory();
    if (service.pidFile() != null) {
      PidFile.check(service.pidFile(), inputFiles());
    }
    LiveExports exports =
        new LiveExports(
            listening, opener, log, this::failedClosed, reload, refusalCode, this::stopAndWait);
    this.exports = exports;
    List<AutoCloseable> opened = new ArrayList<>(); // closed in reverse
    ProcessHooks.Installed hooks = ProcessHooks.Installed.NOTHING;
    try {
      opened.add(exports); // after everything else: the exports, then their remotes
      List<ServedExport> served = exports.open(specs);
      NbdTls tls = listening.tls().open();
      InetSocketAddress metricsAt = listening.metrics().address();
      NbdMetrics metrics = metricsAt == null ? null : new NbdMetrics();
      NbdEvents events = metrics == null ? log : NbdEvents.all(log, metrics);
      server =
          new NbdServer(
              served.stream().map(e -> e.export).toList(), listening.limits(), tls, events);
      exports.servedBy(server, metrics);
      if (metrics != null) {
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
      if (!listener.stdin()) { // one process per connection there: status sockets would collide
        opened.add(exports::closeStatus);
        exports.claimStatusSockets(RuntimeDir.create(RuntimeDir.resolve(listening.runtimeDir())));
      }
      opened.add(() -> server.shutdown(GRACE)); // closed before the exports
      Function<String, String> uriOf = listener.listen(server);
      exports.listeningAt(uriOf);
      List<String> uris = served.stream().map(e -> uriOf.apply(e.spec.name())).toList();
      if (service.pidFile() != null) {
        opened.addFirst(PidFile.write(service.pidFile())); // removed last
      }
      hooks = process.install(this);
      if (service.exitWithParent()) {
        opened.add(ParentWatch.start(parent, log, () -> server.shutdown(GRACE)));
      }
      if (listener.stdin()) {
        listener.serveStdin(server);
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
  public Outcome outcome() {
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
   * Rereads the config and serves what it says ({@link LiveExports#reload}); the status socket's
   * answer.
   */
  public String reload() {
    LiveExports e = exports;
    return e == null ? "error: not serving yet" : e.reload();
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

  /** The last export's {@code jverity close}: stops the server, returns once it has closed. */
  private void stopAndWait() {
    stop();
    try {
      finished.await(GRACE.toSeconds() + 5, TimeUnit.SECONDS);
    } catch (InterruptedException x) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits until {@link #run} has closed everything (or the time is up). */
  public boolean awaitFinished(long timeout, TimeUnit unit) throws InterruptedException {
    return finished.await(timeout, unit);
  }

  /** Whether this run rereads its config on SIGHUP and {@code jverity reload}. */
  public boolean reloads() {
    return reload != null && !listening.stdin();
  }

  public ServerLog log() {
    return log;
  }
}
