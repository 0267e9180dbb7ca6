package org.jverity.remote.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.remote.OriginException;
import org.jverity.remote.RemoteOptions;
import org.jverity.remote.RemoteStats;
import org.jverity.testkit.Nginx;

/**
 * The transport's bound on requests in flight, and a cut body that the next attempt recovers,
 * against an nginx whose {@code /slow/} takes 200 ms and whose {@code /trunc/} cuts every other
 * GET.
 */
class HttpTransportTest {
  private static final int SIZE = 128 << 10;
  private static final int SLOW_MILLIS = 200;

  @TempDir static Path dir;
  static Nginx nginx;
  static byte[] data;

  @BeforeAll
  static void start() throws IOException {
    nginx =
        Nginx.start(
            dir.resolve("nginx"),
            Nginx.Faults.DEFAULTS.withSlow(SLOW_MILLIS).withTruncate(1000, 2));
    data = new byte[SIZE];
    new SplittableRandom(5).nextBytes(data);
    Files.write(nginx.www().resolve("a.bin"), data);
  }

  @AfterAll
  static void stop() {
    nginx.close();
  }

  @Test
  void noMoreThanParallelRequestsAreInFlightPerHost() throws Exception {
    int parallel = 2;
    int fetches = 8;
    RemoteOptions options =
        RemoteOptions.builder()
            .cache(null, 0)
            .parallel(parallel)
            .timeouts(Duration.ofSeconds(20), 4, Duration.ofSeconds(20))
            .build();
    RemoteStats stats = new RemoteStats();
    URI url = nginx.url("slow/a.bin");
    try (HttpTransport transport = new HttpTransport(options);
        ExecutorService pool = Executors.newFixedThreadPool(fetches)) {
      HttpOrigin o =
          HttpOrigin.open(url, url.toString(), transport, options, stats, RequestAuthorizer.NONE);
      long t0 = System.nanoTime();
      List<Future<byte[]>> results = new ArrayList<>();
      for (int i = 0; i < fetches; i++) {
        int offset = i * 4096;
        results.add(
            pool.submit(
                () -> {
                  ByteBuffer b = ByteBuffer.allocate(4096);
                  o.fetch(offset, b);
                  return b.array();
                }));
      }
      for (int i = 0; i < fetches; i++) {
        assertThat(results.get(i).get())
            .isEqualTo(Arrays.copyOfRange(data, i * 4096, (i + 1) * 4096));
      }
      // 8 requests of 200 ms, 2 at a time, cannot take less than 4 x 200 ms.
      assertThat(Duration.ofNanos(System.nanoTime() - t0))
          .isGreaterThanOrEqualTo(Duration.ofMillis(fetches / parallel * SLOW_MILLIS - 50));
    }
    List<Nginx.Access> gets =
        nginx.accessLog().stream()
            .filter(a -> a.uri().equals("/slow/a.bin") && a.method().equals("GET"))
            .toList();
    assertThat(gets).hasSize(fetches);
    assertThat(maxOverlap(gets)).isBetween(1, parallel);
  }

  /** The most requests nginx was serving at one moment (intervals shrunk by its 1 ms rounding). */
  private static int maxOverlap(List<Nginx.Access> log) {
    int max = 0;
    for (Nginx.Access a : log) {
      double t = a.start() + 0.002;
      int n = 0;
      for (Nginx.Access b : log) {
        if (b.start() + 0.001 <= t && t <= b.end() - 0.001) {
          n++;
        }
      }
      max = Math.max(max, n);
    }
    return max;
  }

  @Test
  void aCutBodyIsRecoveredByTheNextAttempt() throws IOException {
    RemoteStats stats = new RemoteStats();
    URI url = nginx.url("trunc/a.bin");
    try (HttpTransport transport = new HttpTransport(RemoteOptions.DEFAULTS)) {
      HttpOrigin o =
          HttpOrigin.open(
              url,
              url.toString(),
              transport,
              RemoteOptions.DEFAULTS,
              stats,
              RequestAuthorizer.NONE);
      for (int i = 0; i < 4; i++) {
        ByteBuffer b = ByteBuffer.allocate(16384);
        o.fetch(i * 16384L, b);
        assertThat(b.array()).isEqualTo(Arrays.copyOfRange(data, i * 16384, (i + 1) * 16384));
      }
    }
    // The first attempt of every other distinct GET is cut: 2 of these 4 fetches tried again.
    assertThat(stats.retries.sum()).isEqualTo(2);
    assertThat(stats.failures.sum()).isZero();
  }

  @Test
  void aSlowAnswerTimesOutAndIsRetriedWithinBounds() throws IOException {
    RemoteOptions options =
        RemoteOptions.DEFAULTS.withTimeouts(Duration.ofMillis(50), 1, Duration.ofSeconds(5));
    RemoteStats stats = new RemoteStats();
    URI url = nginx.url("slow/a.bin");
    try (HttpTransport transport = new HttpTransport(options)) {
      assertThatThrownBy(
              () ->
                  HttpOrigin.open(
                      url, url.toString(), transport, options, stats, RequestAuthorizer.NONE))
          .isInstanceOf(OriginException.class)
          // a cold client on a loaded machine may not even connect within 50 ms
          .message()
          .matches(
              Pattern.quote(url + ": HEAD: ")
                  + "(connect )?timed out after 0\\.05 s after 2 attempts");
    }
    assertThat(stats.retries.sum()).isEqualTo(1);
    assertThat(stats.failures.sum()).isEqualTo(1);
  }
}
