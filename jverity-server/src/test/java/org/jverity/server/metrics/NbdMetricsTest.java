package org.jverity.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.RandomAccessFile;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.nbd.NbdEvents;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.testkit.Tool;
import org.jverity.testkit.ToolResult;
import org.jverity.verify.ReaderOptions;

/** Metrics scraped over HTTP while nbdcopy, nbdsh and a raw client use a served image. */
public class NbdMetricsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Pattern LINE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)$");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  @TempDir Path dir;

  @Test
  void countsRequestsBytesLatencyConnectionsErrorsAndCorruptionsAndReadsExportsAtScrapeTime()
      throws Exception {
    Tool.of("nbdcopy").require();
    Tool.of("nbdsh").require();
    try (NbdMetrics metrics = new NbdMetrics();
        ServedImage image = ServedImage.random(dir, 256, ReaderOptions.DEFAULTS, null, metrics)) {
      metrics.register(image.export).registerCache(image.reader()::cacheStats);
      InetSocketAddress at = metrics.start(new InetSocketAddress("127.0.0.1", 0));
      assertThat(at.getPort()).isPositive();

      Tool.of("nbdcopy").in(dir).timeout(TIMEOUT).check(image.tcpUri(), "null:");
      String text = scrape(at);
      double connections = value(text, "jverity_nbd_connections_total"); // nbdcopy may open several
      double reads =
          value(
              text, "jverity_nbd_requests_total", "export", "", "command", "read", "result", "ok");
      assertThat(reads).isPositive();
      assertThat(value(text, "jverity_nbd_bytes_total", "command", "read", "result", "ok"))
          .isEqualTo(256 * 4096);
      assertThat(value(text, "jverity_nbd_request_duration_seconds_count", "command", "read"))
          .isEqualTo(reads);
      assertThat(
              value(
                  text,
                  "jverity_nbd_request_duration_seconds_bucket",
                  "command",
                  "read",
                  "le",
                  "+Inf"))
          .isEqualTo(reads);
      assertThat(text)
          .contains("le=\"5.0E-6\"")
          .contains("le=\"1.0\"")
          .doesNotContain("le=\"2.5\"")
          .contains("# TYPE jverity_nbd_request_duration_seconds histogram");
      assertThat(value(text, "jverity_nbd_request_duration_seconds_sum", "command", "read"))
          .isPositive();
      assertThat(value(text, "jverity_nbd_connections_total")).isPositive();
      assertThat(value(text, "jverity_nbd_export_size_bytes", "export", "")).isEqualTo(256 * 4096);
      assertThat(value(text, "jverity_nbd_export_verified", "export", "")).isEqualTo(1);
      assertThat(value(text, "jverity_nbd_export_corruptions_total", "export", "")).isZero();
      assertThat(
              value(text, "jverity_nbd_verifications_total", "path", "inline")
                  + value(text, "jverity_nbd_verifications_total", "path", "pool"))
          .isPositive();
      assertThat(text).contains("jverity_nbd_verification_fallbacks_total{export=\"\"}");
      assertThat(value(text, "jverity_nbd_hash_cache_misses_total")).isPositive();
      assertThat(value(text, "jverity_nbd_hash_cache_loads_total")).isPositive();
      assertThat(text)
          .contains(
              "jverity_nbd_hash_cache_hits_total ", "jverity_nbd_hash_cache_evictions_total ");
      assertThat(value(text, "jverity_nbd_hash_cache_bytes")).isPositive();
      assertThat(value(text, "jverity_nbd_hash_cache_capacity_bytes")).isEqualTo(16 << 20);

      // a write gets EPERM: counted under its own result
      Tool.of("nbdsh")
          .in(dir)
          .timeout(TIMEOUT)
          .run("-u", image.tcpUri(), "-c", "h.set_strict_mode(0)", "-c", "h.pwrite(b'x' * 512, 0)");
      // a handshake with unknown client flags is a protocol error
      try (Socket s = new Socket("127.0.0.1", image.address.getPort())) {
        DataInputStream in = new DataInputStream(s.getInputStream());
        in.readFully(new byte[18]);
        new DataOutputStream(s.getOutputStream()).writeInt(0x80);
        assertThat(in.read()).isEqualTo(-1); // closed by the server
      }
      // one corrupted data block: reads of it fail with EIO
      try (RandomAccessFile f = new RandomAccessFile(image.data.toFile(), "rw")) {
        f.seek(3 * 4096 + 7);
        int b = f.read();
        f.seek(3 * 4096 + 7);
        f.write(b ^ 1);
      }
      ToolResult r =
          Tool.of("nbdsh")
              .in(dir)
              .timeout(TIMEOUT)
              .run("-u", image.tcpUri(), "-c", "h.pread(4096, 3 * 4096)");
      assertThat(r.exit()).as("%s", r).isNotZero();

      text = awaitScrape(at, "jverity_nbd_connections_open 0");
      assertThat(value(text, "jverity_nbd_requests_total", "command", "write", "result", "eperm"))
          .isEqualTo(1);
      assertThat(value(text, "jverity_nbd_bytes_total", "command", "write", "result", "eperm"))
          .isEqualTo(512);
      assertThat(value(text, "jverity_nbd_requests_total", "command", "read", "result", "eio"))
          .isEqualTo(1);
      assertThat(value(text, "jverity_nbd_protocol_errors_total")).isEqualTo(1);
      assertThat(value(text, "jverity_nbd_corruptions_total", "export", "", "area", "data"))
          .isEqualTo(1);
      assertThat(value(text, "jverity_nbd_export_corruptions_total", "export", "")).isEqualTo(1);
      assertThat(value(text, "jverity_nbd_export_verified", "export", "")).isZero();
      assertThat(value(text, "jverity_nbd_connections_total")).isEqualTo(connections + 3);
    }
  }

  @Test
  void eventsCountPerLabelCombinationAndCloseStopsTheExporter() throws Exception {
    NbdMetrics metrics = new NbdMetrics();
    for (int i = 0; i < 1000; i++) {
      metrics.request("a", "read", 4096, null, 20_000); // 20 µs
      metrics.request("b", "read", 0, "EINVAL", 3_000); // 3 µs
    }
    metrics.request("a", "cache", 0, null, 2_000_000_000L); // 2 s: past every bound
    InetSocketAddress at = metrics.start(new InetSocketAddress("127.0.0.1", 0));
    String text = scrape(at);
    assertThat(
            value(
                text,
                "jverity_nbd_requests_total",
                "export",
                "a",
                "command",
                "read",
                "result",
                "ok"))
        .isEqualTo(1000);
    assertThat(
            value(
                text, "jverity_nbd_bytes_total", "export", "a", "command", "read", "result", "ok"))
        .isEqualTo(4096 * 1000);
    assertThat(value(text, "jverity_nbd_requests_total", "export", "b", "result", "einval"))
        .isEqualTo(1000);
    assertThat(
            value(
                text,
                "jverity_nbd_request_duration_seconds_bucket",
                "export",
                "a",
                "command",
                "read",
                "le",
                "1.0E-5"))
        .isZero();
    assertThat(
            value(
                text,
                "jverity_nbd_request_duration_seconds_bucket",
                "export",
                "a",
                "command",
                "read",
                "le",
                "2.5E-5"))
        .isEqualTo(1000);
    assertThat(
            value(
                text, "jverity_nbd_request_duration_seconds_bucket", "export", "b", "le", "5.0E-6"))
        .isEqualTo(1000);
    assertThat(
            value(
                text,
                "jverity_nbd_request_duration_seconds_bucket",
                "command",
                "cache",
                "le",
                "1.0"))
        .isZero();
    assertThat(
            value(
                text, "jverity_nbd_request_duration_seconds_sum", "export", "a", "command", "read"))
        .isCloseTo(0.02, org.assertj.core.data.Offset.offset(1e-9));
    metrics.close();
    metrics.close(); // idempotent
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> scrape(at))
        .isInstanceOf(java.io.IOException.class);
  }

  @Test
  void allTellsEveryListenerEvenWhenOneThrows() throws Exception {
    NbdEvents throwing =
        new NbdEvents() {
          @Override
          public void request(String export, String command, long bytes, String error, long nanos) {
            throw new IllegalStateException("a listener's bug");
          }

          @Override
          public void connected(String peer) {
            throw new IllegalStateException("a listener's bug");
          }
        };
    try (NbdMetrics a = new NbdMetrics();
        NbdMetrics b = new NbdMetrics()) {
      NbdEvents all = NbdEvents.all(a, throwing, b);
      all.connected("peer");
      all.request("x", "read", 10, null, 1000);
      for (NbdMetrics m : new NbdMetrics[] {a, b}) {
        String text = scrape(m.start(new InetSocketAddress("127.0.0.1", 0)));
        assertThat(value(text, "jverity_nbd_connections_total")).isEqualTo(1);
        assertThat(value(text, "jverity_nbd_requests_total", "export", "x", "command", "read"))
            .isEqualTo(1);
      }
    }
  }

  /**
   * GET /metrics in the text format. (HttpURLConnection: the tests run in the module, which does
   * not read java.net.http.)
   */
  public static String scrape(InetSocketAddress at) throws Exception {
    HttpURLConnection c =
        (HttpURLConnection)
            URI.create("http://127.0.0.1:" + at.getPort() + "/metrics").toURL().openConnection();
    c.setConnectTimeout(2000);
    c.setReadTimeout((int) TIMEOUT.toMillis());
    try {
      assertThat(c.getResponseCode()).isEqualTo(200);
      assertThat(c.getContentType()).startsWith("text/plain");
      try (var in = c.getInputStream()) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    } finally {
      c.disconnect();
    }
  }

  /** Scrapes until {@code line} shows (connections end on their own threads). */
  static String awaitScrape(InetSocketAddress at, String line) throws Exception {
    long until = System.nanoTime() + TIMEOUT.toNanos();
    String text = scrape(at);
    while (!text.lines().anyMatch(l -> l.startsWith(line)) && System.nanoTime() < until) {
      Thread.sleep(50);
      text = scrape(at);
    }
    return text;
  }

  /**
   * The sum of the samples of {@code name} whose labels include the given name, value pairs; 0 when
   * none is there... unless the metric itself is missing, which fails.
   */
  static double value(String text, String name, String... labels) {
    double sum = 0;
    boolean seen = false;
    for (String l : text.split("\n")) {
      Matcher m = LINE.matcher(l);
      if (!m.matches() || !m.group(1).equals(name)) {
        continue;
      }
      seen = true;
      Map<String, String> have = new TreeMap<>();
      if (m.group(2) != null) {
        Matcher lm = LABEL.matcher(m.group(2));
        while (lm.find()) {
          have.put(lm.group(1), lm.group(2));
        }
      }
      boolean all = true;
      for (int i = 0; i < labels.length; i += 2) {
        all &= labels[i + 1].equals(have.get(labels[i]));
      }
      if (all) {
        sum += Double.parseDouble(m.group(3));
      }
    }
    assertThat(seen).as("%s in:%n%s", name, text).isTrue();
    return sum;
  }
}
