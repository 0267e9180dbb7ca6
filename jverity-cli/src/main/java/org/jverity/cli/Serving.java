package org.jverity.cli;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jverity.nbd.Export;
import org.jverity.nbd.NbdEvents;
import org.jverity.nbd.NbdMetrics;
import org.jverity.nbd.NbdServer;
import org.jverity.nbd.NbdTls;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.HashBlockCache;

/**
 * Runs an NBD server for {@code open} and {@code serve} until it is told to stop: opens the
 * exports over one hash block cache, claims their status sockets, listens (or serves stdin), prints
 * one URI per export on stdout, then waits. SIGINT and SIGTERM stop it cleanly (a shutdown hook:
 * requests in flight finish, sockets are removed) with exit code 0; a reader failing closed under
 * --restart-on-corruption or --panic-on-corruption stops it with {@link ExitCode#RESTART} or
 * {@link ExitCode#PANIC}. One instance per run; the stop paths are thread-safe.
 */
final class Serving {
  /** How long requests in flight may take to finish on a clean stop. */
  static final Duration GRACE = Duration.ofSeconds(30);
  /** How long a panic waits for requests in flight: barely, they fail closed anyway. */
  static final Duration PANIC_GRACE = Duration.ofMillis(200);

  private final List<ExportSpec> specs;
  private final Listening listening;
  private final PrintWriter out;
  private final ServerLog log;
  private final AtomicReference<CorruptionMode> failedClosed = new AtomicReference<>();
  private final CountDownLatch finished = new CountDownLatch(1); // the main thread has cleaned up
  private volatile NbdServer server;
  private volatile List<String> uris = List.of();

  Serving(List<ExportSpec> specs, Listening listening, PrintWriter out, PrintWriter err) {
    this.specs = specs;
    this.listening = listening;
    this.out = out;
    this.log = new ServerLog(err);
  }

  /** Serves until stopped; returns the exit code. */
  int run() throws IOException {
    checkSocketDirectory();
    HashBlockCache cache = new HashBlockCache(listening.cacheSize());
    List<AutoCloseable> opened = new ArrayList<>(); // closed in reverse
    Thread hook = null;
    try {
      List<ServedExport> served = new ArrayList<>();
      for (ExportSpec spec : specs) {
        ServedExport e = ServedExport.open(spec, cache, log, this::failedClosed);
        opened.add(e);
        served.add(e);
      }
      Security security = listening.security();
      NbdTls tls = security.openTls();
      InetSocketAddress metricsAt = security.metricsAddress();
      NbdMetrics metrics = metricsAt == null ? null : new NbdMetrics();
      NbdEvents events = metrics == null ? log : NbdEvents.all(log, metrics);
      server = new NbdServer(served.stream().map(e -> e.export).toList(), listening.limits(), tls, events);
      if (metrics != null) {
        served.forEach(e -> metrics.register(e.export));
        served.forEach(e -> metrics.registerDeviceErrors(e.spec.name(), e.deviceErrors::truncated, e.deviceErrors::other));
        metrics.registerCache(cache::stats); // the one cache every export shares
        InetSocketAddress m;
        try {
          m = metrics.start(metricsAt);
        } catch (IOException e) {
          metrics.close();
          throw new CliException(ExitCode.IO_ERROR, "--metrics-port " + security.metricsPort() + ": cannot listen: "
              + e.getMessage());
        }
        opened.add(metrics);
        log.line("metrics: http://" + NbdUri.host(m) + ":" + m.getPort() + "/metrics");
      }
      if (!listening.stdin()) { // one process per connection there: status sockets would collide
        Path dir = RuntimeDir.create(RuntimeDir.resolve(listening.runtimeDir()));
        for (int i = 0; i < served.size(); i++) {
          ServedExport e = served.get(i);
          int index = i;
          opened.add(StatusSocket.open(RuntimeDir.socket(dir, e.spec.name()), e.spec.name(),
              () -> StatusReport.text(e, uris.get(index), server.connections())));
        }
      }
      opened.add(() -> server.shutdown(GRACE)); // closed before the exports
      uris = listen(served);
      hook = Thread.ofPlatform().name("jverity-shutdown").unstarted(this::stopOnSignal);
      Runtime.getRuntime().addShutdownHook(hook);
      if (listening.stdin()) {
        serveStdin();
      } else {
        for (String uri : uris) {
          out.println(uri);
        }
        out.flush();
        server.awaitShutdown();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      for (int i = opened.size() - 1; i >= 0; i--) {
        try {
          opened.get(i).close();
        } catch (Exception e) {
          log.line("closing: " + e.getMessage());
        }
      }
      finished.countDown();
    }
    if (hook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook ends it with exitCode()
      }
    }
    return exitCode();
  }

  private int exitCode() {
    CorruptionMode mode = failedClosed.get();
    return mode == null ? ExitCode.OK : mode == CorruptionMode.PANIC ? ExitCode.PANIC : ExitCode.RESTART;
  }

  /** The URI of each export, after listening where the options say. */
  private List<String> listen(List<ServedExport> served) throws IOException {
    if (listening.stdin()) {
      return List.of(); // the client started this process: it needs no URI
    }
    if (listening.socket() != null) {
      try {
        server.listenUnix(listening.socket());
      } catch (IOException e) {
        throw new CliException(ExitCode.IO_ERROR, "--socket " + listening.socket() + ": cannot listen: " + e.getMessage());
      }
      return served.stream().map(e -> NbdUri.unix(listening.socket(), e.spec.name())).toList();
    }
    InetSocketAddress address = new InetSocketAddress(listening.bind(), listening.port());
    if (address.isUnresolved()) {
      throw new CliException(ExitCode.INVALID_PARAMETER, "--bind: " + listening.bind()
          + " (expected: an IP address or a host name that resolves)");
    }
    InetSocketAddress bound;
    try {
      bound = server.listen(address);
    } catch (BindException e) {
      throw new CliException(ExitCode.IO_ERROR, "--bind " + listening.bind() + " --port " + listening.port()
          + ": cannot listen: " + e.getMessage());
    }
    boolean tls = listening.security().tlsOn();
    return served.stream().map(e -> NbdUri.tcp(bound, e.spec.name(), tls)).toList();
  }

  /** One connection on stdin/stdout, as {@code nbdkit -s}: stdout carries the protocol only. */
  private void serveStdin() {
    PrintStream protocol = System.out;
    System.setOut(System.err); // a stray print must not corrupt the protocol stream
    try {
      server.serve(new FileInputStream(FileDescriptor.in), new FileOutputStream(FileDescriptor.out));
    } finally {
      System.setOut(protocol);
    }
  }

  private void checkSocketDirectory() {
    Path socket = listening.socket();
    if (socket != null) {
      Path dir = socket.toAbsolutePath().getParent();
      if (dir == null || !Files.isDirectory(dir)) {
        throw new CliException(ExitCode.INVALID_PARAMETER, "--socket: " + socket + " (expected: a path in an existing directory)");
      }
    }
  }

  /** From a reader's thread, once per export that fails closed: stops the server. */
  private void failedClosed(CorruptionMode mode, CorruptBlockException cause) {
    if (failedClosed.compareAndSet(null, mode)) {
      NbdServer s = server;
      if (s != null) {
        Thread.ofPlatform().name("jverity-fail-closed")
            .start(() -> s.shutdown(mode == CorruptionMode.PANIC ? PANIC_GRACE : GRACE));
      }
    }
  }

  /**
   * The shutdown hook (SIGINT, SIGTERM, or the JVM exiting): stops the server, waits for the main
   * thread to close everything, then ends the JVM with this run's exit code rather than the
   * signal's (128 + signal).
   */
  private void stopOnSignal() {
    NbdServer s = server;
    if (s != null) {
      s.shutdown(GRACE);
    }
    try {
      finished.await(GRACE.toSeconds() + 5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    log.flush();
    Runtime.getRuntime().halt(exitCode());
  }
}
