package org.jverity.remote.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.groups.Tuple.tuple;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.remote.ObjectChangedException;
import org.jverity.remote.OriginException;
import org.jverity.remote.RemoteOptions;
import org.jverity.remote.RemoteStats;
import org.jverity.testkit.Nginx;

/**
 * {@link HttpOrigin} against a real nginx: what it pins at open, the exact bytes of a range, and
 * each wrong answer refused or retried as its kind says.
 */
class HttpOriginTest {
  private static final int SIZE = 256 << 10;
  private static final RemoteOptions OPTIONS =
      RemoteOptions.DEFAULTS.withTimeouts(Duration.ofSeconds(20), 4, Duration.ofSeconds(20));

  @TempDir static Path dir;
  static Nginx nginx;
  static byte[] data;
  static HttpTransport transport;

  @BeforeAll
  static void start() throws IOException {
    nginx = Nginx.start(dir.resolve("nginx"));
    data = random(SIZE, 1);
    Files.write(nginx.www().resolve("a.bin"), data);
    transport = new HttpTransport(OPTIONS.withCaCert(nginx.certificate()));
  }

  @AfterAll
  static void stop() {
    transport.close();
    nginx.close();
  }

  static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }

  static HttpOrigin open(URI url, RemoteStats stats) throws IOException {
    return HttpOrigin.open(url, url.toString(), transport, OPTIONS, stats, RequestAuthorizer.NONE);
  }

  static byte[] fetch(HttpOrigin o, long offset, int length) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(length);
    o.fetch(offset, b);
    assertThat(b.hasRemaining()).isFalse();
    return b.array();
  }

  static List<Nginx.Access> log(String uri) {
    return nginx.accessLog().stream().filter(a -> a.uri().equals(uri)).toList();
  }

  @Test
  void headGivesSizeAndEtag() throws IOException {
    Path file = nginx.www().resolve("a.bin");
    HttpOrigin o = open(nginx.url("a.bin"), new RemoteStats());
    long mtime = Files.getLastModifiedTime(file).toMillis() / 1000;
    assertThat(o.identity().size()).isEqualTo(SIZE);
    // nginx's ETag: "<mtime hex>-<size hex>"
    assertThat(o.identity().etag())
        .isEqualTo("\"" + Long.toHexString(mtime) + "-" + Long.toHexString(SIZE) + "\"");
    assertThat(o.identity().location()).isEqualTo(nginx.url("a.bin").toString());
  }

  static final int PROBE = 64 << 10;

  static HttpOrigin probed(URI url, RemoteStats stats) throws IOException {
    return HttpOrigin.open(
        url, url.toString(), transport, OPTIONS, stats, RequestAuthorizer.NONE, PROBE);
  }

  static byte[] opening(HttpOrigin o) {
    ByteBuffer b = o.takeOpening();
    byte[] a = new byte[b.remaining()];
    b.get(a);
    return a;
  }

  @Test
  void aProbeGivesSizeEtagAndTheFirstBytesInOneRequest() throws IOException {
    RemoteStats stats = new RemoteStats();
    HttpOrigin o = probed(nginx.url("a.bin"), stats);
    assertThat(o.identity()).isEqualTo(open(nginx.url("a.bin"), new RemoteStats()).identity());
    assertThat(opening(o)).isEqualTo(Arrays.copyOf(data, PROBE));
    assertThat(o.takeOpening()).as("handed over once").isNull();
    assertThat(stats.requests.sum()).isEqualTo(1);
    assertThat(stats.bytes.sum()).isEqualTo(PROBE);
    assertThat(log("/a.bin"))
        .filteredOn(a -> a.range() != null && a.range().equals("bytes=0-" + (PROBE - 1)))
        .extracting(Nginx.Access::method, Nginx.Access::status)
        .contains(tuple("GET", 206));
    assertThat(fetch(o, 1000, 5000)).isEqualTo(Arrays.copyOfRange(data, 1000, 6000));
  }

  @Test
  void aProbeOfASmallObjectBringsItWholeAndAnEmptyOneIsSizedToo() throws IOException {
    byte[] small = random(1000, 5);
    Files.write(nginx.www().resolve("small.bin"), small);
    Files.write(nginx.www().resolve("empty.bin"), new byte[0]);
    HttpOrigin o = probed(nginx.url("small.bin"), new RemoteStats());
    assertThat(o.identity().size()).isEqualTo(1000);
    assertThat(opening(o)).isEqualTo(small);
    HttpOrigin empty = probed(nginx.url("empty.bin"), new RemoteStats());
    assertThat(empty.identity().size()).isZero();
    assertThat(empty.takeOpening()).isNull();
    assertThat(log("/empty.bin")).extracting(Nginx.Access::bytes).containsExactly(0L);
  }

  @Test
  void aProbeRefusesAServerThatIgnoresRangesOrSendsAnotherRangeAtOpen() throws IOException {
    RemoteStats stats = new RemoteStats();
    URI norange = nginx.url("norange/a.bin");
    assertThatThrownBy(() -> probed(norange, stats))
        .isInstanceOf(OriginException.class)
        .hasMessage(
            norange
                + ": size probe (bytes 0-65535): answered 200 to a range request (the server"
                + " ignores ranges)");
    assertThat(stats.bytes.sum()).isLessThanOrEqualTo(ErrorBody.LIMIT);
    URI badrange = nginx.url("badrange/a.bin");
    assertThatThrownBy(() -> probed(badrange, new RemoteStats()))
        .isInstanceOf(OriginException.class)
        .hasMessageStartingWith(
            badrange + ": size probe (bytes 0-65535): answered Content-Range bytes 1-");
  }

  @Test
  void aProbedRedirectIsResolvedOnceAndPinned() throws IOException {
    Files.write(nginx.www().resolve("b.bin"), data); // a log of its own
    HttpOrigin o = probed(nginx.url("redirect/b.bin"), new RemoteStats());
    assertThat(o.pinnedUri()).isEqualTo(nginx.url("b.bin"));
    assertThat(opening(o)).isEqualTo(Arrays.copyOf(data, PROBE));
    assertThat(fetch(o, 4096, 4096)).isEqualTo(Arrays.copyOfRange(data, 4096, 8192));
    assertThat(log("/redirect/b.bin")).hasSize(1).allMatch(a -> a.status() == 302);
    assertThat(log("/b.bin")).hasSize(2).allMatch(a -> a.status() == 206);
  }

  @Test
  void sizeFromTheFirstByteWhenHeadIsRefused() throws IOException {
    HttpOrigin o = open(nginx.url("nohead/a.bin"), new RemoteStats());
    assertThat(o.identity().size()).isEqualTo(SIZE);
    assertThat(o.identity().etag()).isNotNull();
    assertThat(fetch(o, 1000, 5000)).isEqualTo(Arrays.copyOfRange(data, 1000, 6000));
    List<Nginx.Access> log = log("/nohead/a.bin");
    assertThat(log)
        .extracting(Nginx.Access::method, Nginx.Access::status)
        .startsWith(tuple("HEAD", 403), tuple("GET", 206));
    assertThat(log.get(1).range()).isEqualTo("bytes=0-0");
  }

  @Test
  void rangesAreByteIdenticalOverHttpAndHttps() throws IOException {
    for (URI url : List.of(nginx.url("a.bin"), nginx.httpsUrl("a.bin"))) {
      RemoteStats stats = new RemoteStats();
      HttpOrigin o = open(url, stats);
      SplittableRandom rnd = new SplittableRandom(7);
      long asked = 0;
      for (int i = 0; i < 20; i++) {
        int length = 1 + rnd.nextInt(64 << 10);
        int offset = rnd.nextInt(SIZE - length + 1);
        ByteBuffer direct = ByteBuffer.allocateDirect(length);
        o.fetch(offset, direct);
        byte[] got = new byte[length];
        direct.flip().get(got);
        assertThat(got)
            .as("%s at %d", url, offset)
            .isEqualTo(Arrays.copyOfRange(data, offset, offset + length));
        asked += length;
      }
      assertThat(fetch(o, SIZE - 1, 1)).containsExactly(data[SIZE - 1]);
      assertThat(stats.requests.sum()).isEqualTo(22); // HEAD + 21 ranges
      assertThat(stats.bytes.sum()).isEqualTo(asked + 1);
      assertThat(stats.retries.sum()).isZero();
      assertThat(Arrays.stream(stats.latencyCounts()).sum()).isEqualTo(22);
      String protocol = url.getScheme().equals("https") ? "HTTP/2.0" : "HTTP/1.1";
      assertThat(log("/a.bin")).last().extracting(Nginx.Access::protocol).isEqualTo(protocol);
    }
  }

  @Test
  void httpsWithoutTheCaIsRefusedInOneLine() throws IOException {
    RemoteStats stats = new RemoteStats();
    URI url = nginx.httpsUrl("a.bin");
    try (HttpTransport system = new HttpTransport(OPTIONS)) {
      assertThatThrownBy(
              () ->
                  HttpOrigin.open(
                      url, url.toString(), system, OPTIONS, stats, RequestAuthorizer.NONE))
          .isInstanceOf(OriginException.class)
          .hasMessageStartingWith(url + ": HEAD: TLS: ")
          .hasMessageContaining("certification path")
          .hasMessageNotContaining("\n")
          .hasMessageNotContaining("attempts"); // a certificate does not get better by retrying
    }
    assertThat(stats.failures.sum()).isEqualTo(1);
  }

  @Test
  void aRedirectIsResolvedOnceAndPinned() throws IOException {
    HttpOrigin o = open(nginx.url("redirect/a.bin"), new RemoteStats());
    assertThat(o.pinnedUri()).isEqualTo(nginx.url("a.bin"));
    for (int i = 0; i < 10; i++) {
      assertThat(fetch(o, i * 4096L, 4096))
          .isEqualTo(Arrays.copyOfRange(data, i * 4096, (i + 1) * 4096));
    }
    assertThat(log("/redirect/a.bin")).hasSize(1).allMatch(a -> a.status() == 302);
    assertThat(o.identity().location()).isEqualTo(nginx.url("redirect/a.bin").toString());
  }

  @Test
  void redirectsEndAfterFive() throws IOException {
    URI url = nginx.url("loop/a.bin");
    assertThatThrownBy(() -> open(url, new RemoteStats()))
        .isInstanceOf(OriginException.class)
        .hasMessage(url + ": more than 5 redirects");
    assertThat(log("/loop/a.bin")).hasSize(6);
  }

  @Test
  void aWholeBodyForARangeIsRefused() throws IOException {
    RemoteStats stats = new RemoteStats();
    HttpOrigin o = open(nginx.url("norange/a.bin"), stats);
    assertThatThrownBy(() -> fetch(o, 4096, 4096))
        .isInstanceOf(OriginException.class)
        .hasMessage(
            nginx.url("norange/a.bin")
                + ": bytes 4096-8191: answered 200 to a range request (the server ignores ranges)");
    assertThat(stats.failures.sum()).isEqualTo(1);
    assertThat(stats.bytes.sum()).isLessThanOrEqualTo(ErrorBody.LIMIT);
  }

  @Test
  void aWrongContentRangeIsRefused() throws IOException {
    HttpOrigin o = open(nginx.url("badrange/a.bin"), new RemoteStats());
    assertThatThrownBy(() -> fetch(o, 0, 4096))
        .isInstanceOf(OriginException.class)
        .hasMessage(
            nginx.url("badrange/a.bin")
                + ": bytes 0-4095: answered Content-Range bytes 1-4096/"
                + SIZE
                + " (asked bytes 0-4095/"
                + SIZE
                + ")");
  }

  @Test
  void aCutBodyIsRetriedThenRefused() throws IOException {
    RemoteStats stats = new RemoteStats();
    RemoteOptions twice = OPTIONS.withTimeouts(Duration.ofSeconds(20), 2, Duration.ofSeconds(20));
    URI url = nginx.url("trunc/a.bin");
    HttpOrigin o =
        HttpOrigin.open(url, url.toString(), transport, twice, stats, RequestAuthorizer.NONE);
    assertThatThrownBy(() -> fetch(o, 0, 65536))
        .isInstanceOf(OriginException.class)
        // the JDK may or may not hand over the 1000 bytes before it sees the connection close
        .message()
        .matches(
            Pattern.quote(url + ": bytes 0-65535: body cut short after ")
                + "(0|1000) of 65536 bytes after 3 attempts");
    assertThat(stats.retries.sum()).isEqualTo(2);
    assertThat(log("/trunc/a.bin").stream().filter(a -> a.method().equals("GET")))
        .hasSize(3)
        .allMatch(a -> a.bytes() == 1000);
  }

  @Test
  void dropsAnd503sAreRetriedToSuccess() throws IOException {
    RemoteStats stats = new RemoteStats();
    HttpOrigin o = open(nginx.url("flaky/a.bin"), stats);
    for (int i = 0; i < 12; i++) {
      assertThat(fetch(o, i * 8192L, 8192))
          .isEqualTo(Arrays.copyOfRange(data, i * 8192, (i + 1) * 8192));
    }
    List<Nginx.Access> log = log("/flaky/a.bin");
    long refused = log.stream().filter(a -> a.status() == 503).count();
    long dropped = log.stream().filter(a -> a.status() == 444).count();
    assertThat(refused).isPositive();
    assertThat(dropped).isPositive();
    // Every 503 is retried here. A drop on a kept-alive connection the JDK's client may retry
    // itself once (it takes it for a connection the server had closed), unseen and uncounted.
    assertThat(stats.retries.sum()).isBetween(refused, refused + dropped);
    assertThat(stats.requests.sum())
        .isEqualTo(log.size() - (refused + dropped - stats.retries.sum()));
    assertThat(stats.failures.sum()).isZero();
  }

  @Test
  void aFlippedBitIsReturnedAsSentForTheReaderToCatch() throws IOException {
    RemoteStats stats = new RemoteStats();
    HttpOrigin o = open(nginx.url("corrupt/a.bin"), stats);
    byte[] got = fetch(o, 0, 4096);
    byte[] want = Arrays.copyOf(data, 4096);
    want[100] ^= 1;
    assertThat(got).isEqualTo(want);
    assertThat(stats.failures.sum()).isZero();
    assertThat(stats.bytes.sum()).isEqualTo(4096);
  }

  @Test
  void aReplacedObjectIsNamedWithBothEtags() throws IOException {
    Path file = nginx.www().resolve("replaced.bin");
    Files.write(file, random(8192, 2));
    HttpOrigin o = open(nginx.url("replaced.bin"), new RemoteStats());
    String before = o.identity().etag();
    fetch(o, 0, 4096);
    Files.write(file, random(8192, 3));
    Files.setLastModifiedTime(
        file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 10_000));
    ObjectChangedException e =
        catchThrowableOfType(ObjectChangedException.class, () -> fetch(o, 0, 4096));
    assertThat(e).isNotNull();
    assertThat(e.nowEtag()).isNotNull().isNotEqualTo(before);
    assertThat(e.getMessage())
        .contains("ETag " + before + " -> " + e.nowEtag())
        .doesNotContain("\n");
    assertThat(o.reopen().identity().etag()).isEqualTo(e.nowEtag());
  }

  @Test
  void aDeadPortFailsInOneLineWithinTheBudget() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    URI url = URI.create("http://127.0.0.1:" + port + "/a.bin");
    RemoteStats stats = new RemoteStats();
    RemoteOptions quick = OPTIONS.withTimeouts(Duration.ofSeconds(5), 3, Duration.ofSeconds(5));
    long t0 = System.nanoTime();
    assertThatThrownBy(
            () ->
                HttpOrigin.open(
                    url, url.toString(), transport, quick, stats, RequestAuthorizer.NONE))
        .isInstanceOf(OriginException.class)
        .hasMessage(url + ": HEAD: cannot connect (connection refused) after 4 attempts");
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
    assertThat(stats.retries.sum()).isEqualTo(3);
    assertThat(stats.requests.sum()).isEqualTo(4);

    // Many retries allowed, little time: the budget ends them (backoff waits up to 2 s each).
    RemoteStats budgeted = new RemoteStats();
    RemoteOptions brief = OPTIONS.withTimeouts(Duration.ofSeconds(5), 1000, Duration.ofMillis(500));
    long t1 = System.nanoTime();
    assertThatThrownBy(
            () ->
                HttpOrigin.open(
                    url, url.toString(), transport, brief, budgeted, RequestAuthorizer.NONE))
        .isInstanceOf(OriginException.class)
        .hasMessageStartingWith(url + ": HEAD: cannot connect (connection refused) after ");
    assertThat(Duration.ofNanos(System.nanoTime() - t1)).isLessThan(Duration.ofSeconds(5));
    assertThat(budgeted.retries.sum()).isBetween(1L, 100L);
  }

  @Test
  void aBodyLongerThanAskedIsRefusedUnread() throws IOException {
    RemoteStats stats = new RemoteStats();
    HttpOrigin o = open(nginx.url("longbody/a.bin"), stats);
    assertThatThrownBy(() -> fetch(o, 0, 4096))
        .isInstanceOf(OriginException.class)
        .hasMessage(
            nginx.url("longbody/a.bin") + ": bytes 0-4095: sent more than the 4096 bytes asked");
    assertThat(stats.retries.sum()).isZero();
    assertThat(stats.bytes.sum()).isLessThanOrEqualTo(4096);
  }

  @Test
  void s3SlowDownIsRetriedAndNamed() throws IOException {
    RemoteStats stats = new RemoteStats();
    URI url = nginx.url("slowdown/a.bin");
    RemoteOptions twice = OPTIONS.withTimeouts(Duration.ofSeconds(20), 2, Duration.ofSeconds(20));
    HttpOrigin o =
        HttpOrigin.open(url, url.toString(), transport, twice, stats, RequestAuthorizer.NONE);
    assertThatThrownBy(() -> fetch(o, 0, 4096))
        .isInstanceOf(OriginException.class)
        .hasMessage(url + ": bytes 0-4095: HTTP 503 SlowDown after 3 attempts")
        .extracting(e -> ((OriginException) e).status())
        .isEqualTo(503);
    assertThat(stats.retries.sum()).isEqualTo(2);
    assertThat(stats.failures.sum()).isEqualTo(1);
  }

  /** Sends {@code x-token}, stale until {@link #refresh} makes it fresh (when it may). */
  static final class Token implements RequestAuthorizer {
    final boolean renewable;
    final AtomicInteger refreshes = new AtomicInteger();
    volatile String token = "stale";

    Token(boolean renewable) {
      this.renewable = renewable;
    }

    @Override
    public Map<String, String> headers(String method, URI uri, Map<String, String> headers) {
      return Map.of("x-token", token);
    }

    @Override
    public boolean refresh() {
      refreshes.incrementAndGet();
      if (renewable) {
        token = "fresh";
      }
      return renewable;
    }
  }

  @Test
  void anExpiredTokenIsRefreshedOnceAndTheRequestSentAgain() throws IOException {
    URI url = nginx.url("expired/a.bin");
    Token renewable = new Token(true);
    HttpOrigin o =
        HttpOrigin.open(url, url.toString(), transport, OPTIONS, new RemoteStats(), renewable);
    assertThat(fetch(o, 4096, 4096)).isEqualTo(Arrays.copyOfRange(data, 4096, 8192));
    assertThat(renewable.refreshes).hasValue(1);

    Token stale = new Token(false);
    HttpOrigin p =
        HttpOrigin.open(url, url.toString(), transport, OPTIONS, new RemoteStats(), stale);
    assertThatThrownBy(() -> fetch(p, 0, 4096))
        .isInstanceOf(OriginException.class)
        .hasMessage(url + ": bytes 0-4095: HTTP 400 ExpiredToken");
    assertThat(stale.refreshes).hasValue(1);
  }
}
