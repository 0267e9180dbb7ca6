package org.jverity.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.jverity.io.BlockDevice;
import org.jverity.remote.ObjectChangedException;
import org.jverity.remote.ObjectIdentity;
import org.jverity.remote.OriginException;
import org.jverity.remote.RemoteReport;
import org.jverity.remote.RemoteStats;
import org.jverity.server.metrics.NbdMetrics;
import org.jverity.server.metrics.NbdMetricsTest;

/**
 * What a served export says of its remote devices: a replaced object in one line and EIO for every
 * read, an origin's failure once, the "remote" object and rows of status, the origin metrics.
 */
class RemoteDeviceReportTest {
  private final StringWriter text = new StringWriter();
  private final ServerLog log = new ServerLog(new PrintWriter(text, true));

  /** A device at a URL whose every read fails with {@code failure}. */
  private record Failing(IOException failure) implements BlockDevice {
    @Override
    public String description() {
      return "https://h/d.img";
    }

    @Override
    public long size() {
      return 1 << 20;
    }

    @Override
    public void readFully(long offset, ByteBuffer dst) throws IOException {
      throw failure;
    }

    @Override
    public void readFully(long offset, byte[] dst, int dstOffset, int length) throws IOException {
      throw failure;
    }

    @Override
    public void close() {}
  }

  @Test
  void aReplacedObjectIsOneLineAndEveryReadFails() throws Exception {
    DeviceErrors errors = new DeviceErrors("disk", log);
    var pinned = new ObjectIdentity("https://h/d.img", "\"A\"", null, 1 << 20);
    BlockDevice d =
        errors.watch(
            new Failing(new ObjectChangedException("data", pinned, "\"B\"")),
            "https://h/d.img?X-Amz-Signature=secret",
            "data");
    for (int i = 0; i < 5; i++) {
      assertThatThrownBy(() -> d.readFully(0, ByteBuffer.allocate(4096)))
          .isInstanceOf(ObjectChangedException.class); // EIO to the client
    }
    log.flush();
    assertThat(text.toString().lines())
        .containsExactly(
            "jverity: export disk: data object changed since open: ETag \"A\" -> \"B\"");
    assertThat(errors.anyChanged()).isTrue();
    assertThat(errors.changedReads()).isEqualTo(5);
    List<RemoteReport.Device> devices = errors.remoteDevices();
    assertThat(devices)
        .containsExactly(
            new RemoteReport.Device(
                "data", "https://h/d.img", "data object changed since open: ETag \"A\" -> \"B\""));
    Map<String, Object> json = RemoteReport.json(devices, new RemoteStats());
    assertThat(json)
        .containsKeys(
            "devices",
            "requests",
            "bytes",
            "cacheHits",
            "cacheMisses",
            "cacheEvictions",
            "retries",
            "failures",
            "rereads");
    assertThat(json.get("devices").toString()).contains("changed=data object changed since open");
    assertThat(RemoteReport.rows(devices, new RemoteStats()))
        .extracting(r -> r[0])
        .containsExactly("data origin", "origin", "origin cache", "changed");
  }

  @Test
  void anOriginsFailureIsSaidOnceAndCounted() throws Exception {
    DeviceErrors errors = new DeviceErrors("disk", log);
    BlockDevice d =
        errors.watch(
            new Failing(
                new OriginException(
                    "https://h/d.img: bytes 0-4095: HTTP 503 after 4 retries", 503)),
            "https://h/d.img",
            "hash");
    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> d.readFully(0, new byte[16], 0, 16))
          .isInstanceOf(OriginException.class);
    }
    log.flush();
    assertThat(text.toString().lines())
        .containsExactly(
            "jverity: export disk: hash https://h/d.img: https://h/d.img: bytes 0-4095: HTTP 503"
                + " after 4 retries");
    assertThat(errors.other()).isEqualTo(3);
    assertThat(errors.anyChanged()).isFalse();
  }

  @Test
  void theOriginMetricsAreLabelledByExport() throws Exception {
    try (NbdMetrics m = new NbdMetrics()) {
      at = m.start(new InetSocketAddress("127.0.0.1", 0));
      assertThat(scrape(m)).doesNotContain("jverity_origin_"); // a server of local files
      RemoteStats s = new RemoteStats();
      s.requests.add(3);
      s.bytes.add(65536);
      s.retries.increment();
      s.cacheHits.add(7);
      s.cacheMisses.add(2);
      s.recordLatency(3_000_000); // 3 ms
      s.recordLatency(40_000_000_000L); // past every bound
      m.registerOrigin("disk", s, () -> true);
      String text = scrape(m);
      assertThat(text)
          .contains("jverity_origin_requests_total{export=\"disk\"} 3")
          .contains("jverity_origin_bytes_total{export=\"disk\"} 65536")
          .contains("jverity_origin_retries_total{export=\"disk\"} 1")
          .contains("jverity_origin_failures_total{export=\"disk\"} 0")
          .contains("jverity_cache_hits_total{export=\"disk\"} 7")
          .contains("jverity_cache_misses_total{export=\"disk\"} 2")
          .contains("jverity_cache_evictions_total{export=\"disk\"} 0")
          .contains("jverity_origin_object_changed{export=\"disk\"} 1")
          .contains(
              "jverity_origin_request_duration_seconds_bucket{export=\"disk\",le=\"0.002\"} 0")
          .contains(
              "jverity_origin_request_duration_seconds_bucket{export=\"disk\",le=\"0.005\"} 1")
          .contains("jverity_origin_request_duration_seconds_bucket{export=\"disk\",le=\"30.0\"} 1")
          .contains("jverity_origin_request_duration_seconds_bucket{export=\"disk\",le=\"+Inf\"} 2")
          .contains("jverity_origin_request_duration_seconds_count{export=\"disk\"} 2");
      m.unregisterOrigin("disk");
      assertThat(scrape(m)).doesNotContain("export=\"disk\"");
    }
  }

  private static String scrape(NbdMetrics m) throws Exception {
    return NbdMetricsTest.scrape(at); // over HTTP, as Prometheus does
  }

  private static InetSocketAddress at;
}
