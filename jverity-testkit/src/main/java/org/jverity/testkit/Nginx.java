package org.jverity.testkit;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A private nginx (Debian's, with its lua module) serving {@link #www()} on two free loopback
 * ports, HTTP and HTTPS (HTTP/2 offered by ALPN, a self-signed certificate for {@code 127.0.0.1}
 * and {@code localhost}), for the remote-device tests: real range requests, ETags, {@code If-Match}
 * and keep-alive, never a mock. Besides {@code /} it serves the same files through fault locations
 * (see {@link Faults}): {@code /slow/}, {@code /flaky/}, {@code /trunc/}, {@code /corrupt/}, {@code
 * /norange/}, {@code /badrange/}, {@code /longbody/}, {@code /redirect/} (302 to the file at {@code
 * /}), {@code /loop/} (302 to itself), {@code /nohead/}, {@code /slowdown/} (S3's 503 SlowDown to
 * every GET) and {@code /expired/} (S3's 400 ExpiredToken to a GET without {@code x-token: fresh}).
 * Its access log says what the origin was asked ({@link #accessLog()}), so tests count requests and
 * bytes where they were served.
 *
 * <p>A fault hits the first of every {@code every} requests of its location (1: every request), so
 * tests are deterministic: a random fault rate would make a test of retries flaky.
 */
public final class Nginx implements AutoCloseable {
  private static final Tool NGINX = Tool.of("nginx");
  private static final Duration START = Duration.ofSeconds(20);

  /**
   * What the fault locations do; {@link #DEFAULTS} unless a test says otherwise.
   *
   * @param slowMillis {@code /slow/}: the delay before each response
   * @param flaky503Every {@code /flaky/}: a 503 for the first of every this many distinct requests
   *     (method, path, range), on its first attempt only, so a retry is always answered however
   *     requests in flight interleave (0: none)
   * @param flakyDropEvery {@code /flaky/}: else the connection closed without an answer (nginx's
   *     444), likewise for the first attempt of the first of every this many (0: none)
   * @param truncateAfter {@code /trunc/}: body bytes sent before the connection is closed
   * @param truncateEvery {@code /trunc/}: which GETs are cut short: 1, every one; else the first
   *     attempt of the first of every this many distinct GETs (path, range), so a retry is answered
   *     whole however requests in flight interleave
   * @param corruptAt {@code /corrupt/}: the file offset whose lowest bit is flipped in transit
   * @param corruptEvery {@code /corrupt/}: which GETs carry the flip (the first of every this many)
   */
  public record Faults(
      int slowMillis,
      int flaky503Every,
      int flakyDropEvery,
      long truncateAfter,
      int truncateEvery,
      long corruptAt,
      int corruptEvery) {
    public static final Faults DEFAULTS = new Faults(20, 2, 3, 1000, 1, 100, 1);

    public Faults withSlow(int millis) {
      return new Faults(
          millis,
          flaky503Every,
          flakyDropEvery,
          truncateAfter,
          truncateEvery,
          corruptAt,
          corruptEvery);
    }

    public Faults withFlaky(int every503, int everyDrop) {
      return new Faults(
          slowMillis, every503, everyDrop, truncateAfter, truncateEvery, corruptAt, corruptEvery);
    }

    public Faults withTruncate(long after, int every) {
      return new Faults(
          slowMillis, flaky503Every, flakyDropEvery, after, every, corruptAt, corruptEvery);
    }

    public Faults withCorrupt(long at, int every) {
      return new Faults(
          slowMillis, flaky503Every, flakyDropEvery, truncateAfter, truncateEvery, at, every);
    }
  }

  /**
   * One line of the access log.
   *
   * @param end when the response was done, seconds since the epoch (ms resolution)
   * @param status the HTTP status (444: closed without an answer)
   * @param bytes body bytes sent
   * @param seconds how long the request took, first byte read to last written
   * @param range the {@code Range} header, or null
   * @param method {@code GET}, {@code HEAD}
   * @param uri the path asked for (query excluded)
   * @param protocol {@code HTTP/1.1}, {@code HTTP/2.0}
   */
  public record Access(
      double end,
      int status,
      long bytes,
      double seconds,
      String range,
      String method,
      String uri,
      String protocol) {
    /** When the request began, seconds since the epoch. */
    public double start() {
      return end - seconds;
    }

    static Access parse(String line) {
      // $msec $status $body_bytes_sent $request_time "$http_range" $request_method $uri
      // $server_protocol
      int q1 = line.indexOf('"');
      int q2 = line.indexOf('"', q1 + 1);
      String[] head = line.substring(0, q1).trim().split(" ");
      String[] tail = line.substring(q2 + 1).trim().split(" ");
      String range = line.substring(q1 + 1, q2);
      return new Access(
          Double.parseDouble(head[0]),
          Integer.parseInt(head[1]),
          Long.parseLong(head[2]),
          Double.parseDouble(head[3]),
          range.equals("-") ? null : range,
          tail[0],
          tail[1],
          tail[2]);
    }
  }

  private final Path dir;
  private final Process process;
  private final int httpPort;
  private final int httpsPort;

  private Nginx(Path dir, Faults faults) throws IOException {
    this.dir = dir;
    Files.createDirectories(dir.resolve("www"));
    Files.createDirectories(dir.resolve("tmp"));
    Openssl.in(dir)
        .check(
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
            "-days",
            "2",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1");
    int[] ports = freePorts();
    this.httpPort = ports[0];
    this.httpsPort = ports[1];
    Files.writeString(dir.resolve("nginx.conf"), NginxConf.text(dir, httpPort, httpsPort, faults));
    this.process =
        NGINX.background(
            dir.resolve("nginx.out"),
            "-p",
            dir.toString(),
            "-c",
            dir.resolve("nginx.conf").toString(),
            "-g",
            "daemon off;");
    awaitPort(httpPort);
    awaitPort(httpsPort);
  }

  /** An nginx in {@code dir} (a fresh directory) with the default faults. */
  public static Nginx start(Path dir) throws IOException {
    return start(dir, Faults.DEFAULTS);
  }

  /**
   * An nginx in {@code dir} (a fresh directory) whose fault locations do what {@code faults} say.
   */
  public static Nginx start(Path dir, Faults faults) throws IOException {
    return new Nginx(dir, faults);
  }

  /** The directory served: tests put their files here. */
  public Path www() {
    return dir.resolve("www");
  }

  /** {@code http://127.0.0.1:PORT/path}; {@code path} is relative to the root ({@code "a.img"}). */
  public URI url(String path) {
    return URI.create("http://127.0.0.1:" + httpPort + "/" + strip(path));
  }

  /** {@code https://127.0.0.1:PORT/path}, trusted with {@link #certificate()}. */
  public URI httpsUrl(String path) {
    return URI.create("https://127.0.0.1:" + httpsPort + "/" + strip(path));
  }

  /** The server's self-signed certificate, PEM: what {@code --ca-cert} is given. */
  public Path certificate() {
    return dir.resolve("cert.pem");
  }

  /**
   * Every request served so far, oldest first. nginx logs a request just after its last byte, so
   * this waits until the log has not grown for a moment.
   */
  public List<Access> accessLog() {
    Path log = dir.resolve("access.log");
    try {
      long size = -1;
      for (int i = 0; i < 40 && Files.size(log) != size; i++) {
        size = Files.size(log);
        Thread.sleep(50);
      }
      List<Access> lines = new ArrayList<>();
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          lines.add(Access.parse(line));
        }
      }
      return lines;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted reading " + log, e);
    }
  }

  /** Stops nginx (and waits for it); the directory stays. */
  public void stop() {
    if (process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          process.waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void close() {
    stop();
  }

  private void awaitPort(int port) throws IOException {
    long deadline = System.nanoTime() + START.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        fail("nginx exited %d at start:%n%s", process.exitValue(), errors());
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        return;
      } catch (IOException e) {
        sleep(50);
      }
    }
    stop();
    fail("nginx did not listen on 127.0.0.1:%d within %s:%n%s", port, START, errors());
  }

  private String errors() throws IOException {
    StringBuilder b = new StringBuilder();
    for (String f : List.of("nginx.out", "error.log")) {
      Path p = dir.resolve(f);
      if (Files.exists(p)) {
        b.append(Files.readString(p));
      }
    }
    return b.toString();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for nginx", e);
    }
  }

  /** Two distinct ports nothing listens on now; nginx binds them a moment later. */
  private static int[] freePorts() throws IOException {
    InetAddress lo = InetAddress.getLoopbackAddress();
    try (ServerSocket a = new ServerSocket(0, 1, lo);
        ServerSocket b = new ServerSocket(0, 1, lo)) {
      return new int[] {a.getLocalPort(), b.getLocalPort()};
    }
  }

  private static String strip(String path) {
    return path.startsWith("/") ? path.substring(1) : path;
  }
}
