package org.jverity.nbd;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A read-only NBD server over verified images: fixed newstyle, structured replies, block status,
 * many requests in flight per connection. Listens on TCP or a Unix-domain socket, or serves one
 * connection on a pair of streams (stdin/stdout). One virtual thread per connection; verification
 * runs in each export's source (a dm-verity image's scheduler: inline for small cached reads, the
 * shared hashing pool for the rest). Memory is bounded by the cache budget plus {@link
 * ServerLimits#maxBytesInFlight()}.
 *
 * <p>Thread-safe. {@link #shutdown} stops accepting, answers the requests read before it and later
 * ones with ESHUTDOWN, then closes every connection once its client left or fell quiet. Exports
 * (their sources) belong to the caller, who closes them after the server.
 */
public final class NbdServer implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(NbdServer.class.getName());

  // Insertion order: the order LIST shows. Replaced whole (never changed in place) when an export
  // is
  // withdrawn, so a handshake reads one consistent map.
  private volatile Map<String, Export> exports;
  private final ServerLimits limits;
  private final NbdTls tls; // null: no TLS
  private final NbdEvents events;
  private final ReadBuffers buffers;
  private final IdleHeap idleHeap = new IdleHeap();
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  private final List<AutoCloseable> listeners = Collections.synchronizedList(new ArrayList<>());
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean shuttingDown;

  /**
   * @param exports at least one; names must differ
   * @param tls null for none
   */
  public NbdServer(List<Export> exports, ServerLimits limits, NbdTls tls, NbdEvents events) {
    if (exports.isEmpty()) {
      throw new IllegalArgumentException("exports: none (expected: at least one)");
    }
    Map<String, Export> byName = new LinkedHashMap<>();
    for (Export e : exports) {
      if (byName.putIfAbsent(e.name(), e) != null) {
        throw new IllegalArgumentException(
            "export name: '" + e.name() + "' twice (expected: distinct names)");
      }
    }
    this.exports = Collections.unmodifiableMap(byName);
    this.limits = limits;
    this.tls = tls;
    this.events = events;
    this.buffers = new ReadBuffers(limits.maxBytesInFlight());
  }

  Map<String, Export> exports() {
    return exports;
  }

  /** Whether {@code export} is still served (not withdrawn). */
  boolean serves(Export export) {
    return exports.get(export.name()) == export;
  }

  ServerLimits limits() {
    return limits;
  }

  NbdTls tls() {
    return tls;
  }

  NbdEvents events() {
    return events;
  }

  boolean isShuttingDown() {
    return shuttingDown;
  }

  /** Connections open now. */
  public int connections() {
    return connections.size();
  }

  /** Listens on a TCP address (port 0: any free port) and returns the address bound. */
  public InetSocketAddress listen(InetSocketAddress address) throws IOException {
    ServerSocket socket = new ServerSocket();
    socket.setReuseAddress(true);
    socket.bind(address, 128);
    listeners.add(socket);
    Thread.ofVirtual()
        .name("nbd-accept-tcp")
        .start(
            () -> {
              while (!shuttingDown) {
                try {
                  Socket s = socket.accept();
                  accept(() -> new Transport.OverSocket(s, false), s::close);
                } catch (IOException e) {
                  if (!shuttingDown && !socket.isClosed()) {
                    LOG.log(System.Logger.Level.WARNING, "accept failed: " + e.getMessage());
                  } else {
                    return;
                  }
                }
              }
            });
    return (InetSocketAddress) socket.getLocalSocketAddress();
  }

  /** Listens on a Unix-domain socket at {@code path}, replacing a stale socket file there. */
  public void listenUnix(Path path) throws IOException {
    Files.deleteIfExists(path);
    ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    channel.bind(UnixDomainSocketAddress.of(path), 128);
    listen(
        channel,
        () -> {
          channel.close();
          Files.deleteIfExists(path);
        });
  }

  /**
   * Accepts on a socket already bound and listening, which another process passed (systemd socket
   * activation), or that {@link #listenUnix} bound: TCP or Unix-domain. {@code close} is how the
   * listener closes at shutdown.
   */
  public void listen(ServerSocketChannel channel, AutoCloseable close) throws IOException {
    boolean unix = channel.getLocalAddress() instanceof UnixDomainSocketAddress;
    String name = unix ? "unix:" + channel.getLocalAddress() : null;
    listeners.add(close);
    Thread.ofVirtual()
        .name(unix ? "nbd-accept-unix" : "nbd-accept-tcp")
        .start(
            () -> {
              int n = 0;
              while (!shuttingDown) {
                try {
                  SocketChannel c = channel.accept();
                  String peer = name + "#" + (++n);
                  accept(
                      () ->
                          unix
                              ? new Transport.OverChannel(c, peer)
                              : new Transport.OverSocket(c.socket(), false),
                      c::close);
                } catch (IOException e) {
                  if (shuttingDown || !channel.isOpen()) {
                    return;
                  }
                  LOG.log(System.Logger.Level.WARNING, "accept failed: " + e.getMessage());
                }
              }
            });
  }

  /**
   * Serves one connection on a pair of streams, as {@code nbdkit -s} does (for {@code nbdfuse
   * --command}, libnbd's {@code connect_command}, inetd); returns when it ends.
   */
  public void serve(InputStream in, OutputStream out) {
    Connection c = new Connection(this, new Transport.OverStreams(in, out, "stdin"));
    idleHeap.clientCame();
    connections.add(c);
    c.run();
  }

  private interface TransportSource {
    Transport open() throws IOException;
  }

  private interface Closer {
    void close() throws IOException;
  }

  /**
   * Connections up to this many run on virtual threads, the rest on platform threads. A virtual
   * thread's wake-up passes through the poller and a carrier: while the connections fit the
   * carriers that is the quickest path (a carrier spins before it sleeps; 4 KiB at QD1 answers in
   * ~45 µs, nbdkit's in ~90), but past the cores every ready connection queues behind the busy
   * carriers and the poller, each a thread the kernel schedules among the clients' (8 fio jobs on 2
   * cores: p99.9 20–28 ms against nbdkit's 2–5). A platform thread per connection past them is
   * woken by the kernel itself, as nbdkit's are (p99.9 5 ms in the same runs). Their number is
   * bounded by {@link ServerLimits#maxConnections}.
   */
  private static final int CORES = Runtime.getRuntime().availableProcessors();

  private void accept(TransportSource source, Closer refuse) throws IOException {
    if (connections.size() >= limits.maxConnections() || shuttingDown) {
      String why =
          shuttingDown ? "shutting down" : "more than " + limits.maxConnections() + " connections";
      refuse.close();
      quietly(() -> events.protocolError("new connection", "refused: " + why));
      return;
    }
    Connection c = new Connection(this, source.open());
    idleHeap.clientCame();
    connections.add(c);
    Thread.Builder kind =
        connections.size() > CORES ? Thread.ofPlatform().daemon() : Thread.ofVirtual();
    kind.name("nbd-connection").start(c);
  }

  void ended(Connection c) {
    connections.remove(c);
    if (connections.isEmpty()) {
      buffers.trim(); // no client left: the buffers kept for reuse are garbage, the heap can shrink
      idleHeap.lastClientLeft();
    }
  }

  /** The read buffers every connection's requests take from, within one budget. */
  ReadBuffers buffers() {
    return buffers;
  }

  /** Bytes of read buffers held now (in use or kept for reuse). */
  long readBufferBytes() {
    return buffers.held();
  }

  /**
   * Stops accepting, answers later requests with ESHUTDOWN, lets those in flight finish, then
   * closes every connection. Idempotent; returns when done or after {@code grace}.
   */
  public void shutdown(Duration grace) {
    if (shuttingDown) {
      awaitStopped(grace);
      return;
    }
    shuttingDown = true;
    synchronized (listeners) {
      for (AutoCloseable l : listeners) {
        try {
          l.close();
        } catch (Exception e) {
          LOG.log(System.Logger.Level.DEBUG, "closing a listener: " + e);
        }
      }
    }
    drain(List.copyOf(connections), grace);
    stopped.countDown();
  }

  /**
   * Stops serving export {@code name} while the others go on: new clients no longer find it, and
   * the connections using it are drained and closed as {@link #shutdown} closes every connection
   * (later requests get ESHUTDOWN, those in flight finish, past {@code grace} they are cut off).
   * Withdrawing the last export shuts the server down. Returns when done; false when no export has
   * that name.
   */
  public boolean withdraw(String name, Duration grace) {
    Export gone;
    synchronized (this) {
      gone = exports.get(name);
      if (gone == null) {
        return false;
      }
      if (exports.size() > 1) {
        Map<String, Export> rest = new LinkedHashMap<>(exports);
        rest.remove(name);
        exports = Collections.unmodifiableMap(rest);
      }
    }
    if (!serves(gone)) {
      drain(connections.stream().filter(c -> c.export() == gone).toList(), grace);
    } else {
      shutdown(grace); // the last one
    }
    return true;
  }

  /**
   * Serves {@code now} in place of the current exports (a reloaded config): new clients find the
   * new set at once; connections to an export that is not in it (removed, or replaced by another
   * {@link Export} of the same name) are drained and closed as {@link #withdraw} does; the others
   * go on untouched. Returns when done.
   *
   * @param now at least one; names must differ
   */
  public void replaceExports(List<Export> now, Duration grace) {
    Map<String, Export> byName = new LinkedHashMap<>();
    for (Export e : now) {
      if (byName.putIfAbsent(e.name(), e) != null) {
        throw new IllegalArgumentException(
            "export name: '" + e.name() + "' twice (expected: distinct names)");
      }
    }
    if (byName.isEmpty()) {
      throw new IllegalArgumentException("exports: none (expected: at least one)");
    }
    synchronized (this) {
      exports = Collections.unmodifiableMap(byName);
    }
    drain(
        connections.stream().filter(c -> c.export() != null && !serves(c.export())).toList(),
        grace);
  }

  /**
   * Drains and closes {@code those} at once, each on a thread of its own ({@link
   * Connection#drainAndClose}: requests read before are answered, later ones get ESHUTDOWN until
   * the client goes or falls quiet); past {@code grace} the rest are cut off (a client that does
   * not read its replies would hold its connection forever).
   */
  private static void drain(List<Connection> those, Duration grace) {
    long until = System.nanoTime() + grace.toNanos();
    List<Thread> closing = new ArrayList<>();
    for (Connection c : those) {
      closing.add(Thread.ofVirtual().name("nbd-drain").start(() -> c.drainAndClose(until)));
    }
    for (Thread t : closing) {
      try {
        t.join(Duration.ofNanos(Math.max(1, until - System.nanoTime())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    for (Connection c : those) {
      c.forceClose();
    }
    // A closed socket ends its connection's thread at once, unless a request is still being
    // answered; waiting for those threads makes "returns when done" true of the connection count
    // too, and is bounded, so a request stuck in a device cannot hold a withdraw or a shutdown.
    long last = Math.max(until, System.nanoTime()) + AFTER_CLOSE.toNanos();
    for (Connection c : those) {
      c.awaitEnd(Duration.ofNanos(last - System.nanoTime()));
    }
  }

  /** How long past the grace a drain waits for the threads of the connections it closed. */
  private static final Duration AFTER_CLOSE = Duration.ofSeconds(1);

  /** Waits until {@link #shutdown} has finished. */
  public void awaitShutdown() throws InterruptedException {
    stopped.await();
  }

  private void awaitStopped(Duration grace) {
    try {
      stopped.await(grace.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    shutdown(Duration.ofSeconds(30));
  }

  /** Runs an event callback; an owner's exception never breaks a connection. */
  static void quietly(Runnable event) {
    try {
      event.run();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "event listener failed: " + e);
    }
  }
}
