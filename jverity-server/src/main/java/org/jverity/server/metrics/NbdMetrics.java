package org.jverity.server.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jverity.nbd.Export;
import org.jverity.nbd.NbdEvents;
import org.jverity.remote.RemoteStats;
import org.jverity.verify.CacheStats;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.SourceStats;

/**
 * Prometheus metrics of an NBD server: an {@link NbdEvents} that counts what the server reports,
 * plus values read from the exports and the hash block cache at scrape time, served by the
 * Prometheus Java client's HTTP exporter ({@code GET /metrics}).
 *
 * <p>Metrics (base units; counters end in {@code _total}):
 *
 * <ul>
 *   <li>{@code jverity_nbd_requests_total{export,command,result}}: requests answered; {@code
 *       command} is "read", "cache", "block_status", ..., "unknown"; {@code result} is "ok" or the
 *       error sent in lower case ("eio", "einval", "eperm", "eshutdown", ...)
 *   <li>{@code jverity_nbd_bytes_total{export,command,result}}: payload bytes sent (reads) or
 *       drained (writes)
 *   <li>{@code jverity_nbd_request_duration_seconds{export,command}}: histogram from reading a
 *       request to sending its last reply byte, buckets from 5 µs to 1 s
 *   <li>{@code jverity_nbd_connections_open}: connections open now (not {@code
 *       jverity_nbd_connections}: the client refuses a gauge named as the counter {@code
 *       jverity_nbd_connections_total} without its suffix)
 *   <li>{@code jverity_nbd_protocol_errors_total}: connections refused or closed for breaking the
 *       protocol or a limit
 *   <li>{@code jverity_nbd_corruptions_total{export,area}}: blocks that failed verification while
 *       serving ("data" or "hash")
 *   <li>read at scrape time from each {@linkplain #register(Export) registered export}: {@code
 *       jverity_nbd_export_size_bytes}, {@code jverity_nbd_export_verified} (1 while the status is
 *       V, 0 once C), {@code jverity_nbd_export_corruptions_total} (the reader's count, every
 *       corruption since it opened), {@code jverity_nbd_verifications_total{export,path}} (requests
 *       verified "inline" on the connection's thread or through the "pool"), {@code
 *       jverity_nbd_verification_fallbacks_total} (inline attempts handed to the pool)
 *   <li>read at scrape time from each export {@linkplain #registerDeviceErrors registered for its
 *       device errors}: {@code jverity_nbd_device_errors_total{export,kind}}, reads of its data or
 *       hash file that failed, {@code kind} "truncated" (shrank under the server) or "io"
 *   <li>read at scrape time from each {@linkplain #registerCache registered cache}: {@code
 *       jverity_nbd_hash_cache_{hits,misses,loads,evictions}_total}, {@code
 *       jverity_nbd_hash_cache_bytes}, {@code jverity_nbd_hash_cache_capacity_bytes}
 *   <li>from each export {@linkplain #registerOrigin registered for its origin} (one with a device
 *       at a URL; none, and not even their names, on a server of local files): {@code
 *       jverity_origin_{requests,bytes,retries,failures}_total{export}}, {@code
 *       jverity_cache_{hits,misses,evictions}_total{export}} (the remote devices' local cache),
 *       {@code jverity_origin_request_duration_seconds{export}} (histogram, {@code
 *       RemoteStats.LATENCY_BOUNDS}) and {@code jverity_origin_object_changed{export}} (1 once a
 *       remote object was replaced under the server: its reads fail)
 * </ul>
 *
 * <p>Thread-safe. The request path does two map look-ups of data points cached per label
 * combination, then adds to striped counters: no label lookup or allocation once a combination has
 * been seen. Uses its own registry, so several instances can live in one JVM.
 */
public final class NbdMetrics implements NbdEvents, AutoCloseable {
  /** Upper bounds of the latency buckets, seconds: 5 µs to 1 s, 1-2.5-5 steps. */
  static final double[] DURATION_BUCKETS = {
    5e-6, 10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3,
    100e-3, 250e-3, 500e-3, 1.0
  };

  static final String OK = "ok";

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Counter requests;
  private final Counter bytes;
  private final Histogram duration;
  private final Gauge connectionsOpen;
  private final Counter connections;
  private final Counter protocolErrors;
  private final Counter corruptions;
  private final List<Export> exports = new CopyOnWriteArrayList<>();
  private final List<DeviceErrorCounts> deviceErrors = new CopyOnWriteArrayList<>();
  private volatile Supplier<CacheStats> cache; // null: no cache metrics
  private volatile OriginMetrics origins; // made by the first registerOrigin

  /** export name → command → its data points. */
  private final ConcurrentHashMap<String, ConcurrentHashMap<String, CommandPoints>> points =
      new ConcurrentHashMap<>();

  private volatile HTTPServer http; // null until started

  public NbdMetrics() {
    requests =
        Counter.builder()
            .name("jverity_nbd_requests_total")
            .help("NBD requests answered, by export, command and result (ok or the error sent)")
            .labelNames("export", "command", "result")
            .withoutExemplars()
            .register(registry);
    bytes =
        Counter.builder()
            .name("jverity_nbd_bytes_total")
            .help(
                "NBD payload bytes sent (reads) or drained (writes), by export, command and result")
            .labelNames("export", "command", "result")
            .withoutExemplars()
            .register(registry);
    duration =
        Histogram.builder()
            .name("jverity_nbd_request_duration_seconds")
            .help("Time from reading an NBD request to sending its last reply byte")
            .labelNames("export", "command")
            .classicOnly()
            .classicUpperBounds(DURATION_BUCKETS)
            .withoutExemplars()
            .register(registry);
    connectionsOpen =
        Gauge.builder()
            .name("jverity_nbd_connections_open")
            .help("NBD connections open")
            .withoutExemplars()
            .register(registry);
    connections =
        Counter.builder()
            .name("jverity_nbd_connections_total")
            .help("NBD connections accepted")
            .withoutExemplars()
            .register(registry);
    protocolErrors =
        Counter.builder()
            .name("jverity_nbd_protocol_errors_total")
            .help("NBD connections refused or closed for breaking the protocol or a limit")
            .withoutExemplars()
            .register(registry);
    corruptions =
        Counter.builder()
            .name("jverity_nbd_corruptions_total")
            .help(
                "Blocks that failed verification while serving, by export and area (data or hash)")
            .labelNames("export", "area")
            .withoutExemplars()
            .register(registry);
    registerScraped();
  }

  /** Reads {@code export}'s verification counters at every scrape. */
  public NbdMetrics register(Export export) {
    exports.add(Objects.requireNonNull(export, "export"));
    return this;
  }

  /** Stops reading {@code export}'s counters: it was withdrawn ({@code jverity close}). */
  public NbdMetrics unregister(Export export) {
    exports.remove(export);
    return this;
  }

  /**
   * Reads {@code export}'s failed device reads at every scrape, as {@code
   * jverity_nbd_device_errors_total{export,kind}}: {@code truncated} (its data or hash file is
   * shorter now than when the server opened it) and {@code io} (any other read error). Both show
   * from the start, at 0, so an alert on their increase needs no first error to exist.
   */
  public NbdMetrics registerDeviceErrors(String export, LongSupplier truncated, LongSupplier io) {
    deviceErrors.add(
        new DeviceErrorCounts(Objects.requireNonNull(export, "export"), truncated, io));
    return this;
  }

  /** Stops reading {@code export}'s failed device reads: it was withdrawn or reloaded. */
  public NbdMetrics unregisterDeviceErrors(String export) {
    deviceErrors.removeIf(d -> d.export().equals(export));
    return this;
  }

  private record DeviceErrorCounts(String export, LongSupplier truncated, LongSupplier io) {}

  /**
   * Reads an export's origin counters and latency histogram ({@code RemoteStats}) at every scrape,
   * and whether one of its objects changed; the first call registers the origin metrics.
   */
  public synchronized NbdMetrics registerOrigin(
      String export, RemoteStats stats, BooleanSupplier changed) {
    if (origins == null) {
      origins = new OriginMetrics(registry);
    }
    origins.add(Objects.requireNonNull(export, "export"), stats, changed);
    return this;
  }

  /** Stops reading {@code export}'s origin counters: it was withdrawn. */
  public synchronized NbdMetrics unregisterOrigin(String export) {
    if (origins != null) {
      origins.remove(export);
    }
    return this;
  }

  /**
   * Reads the hash block cache's counters at every scrape, e.g. {@code cache::stats} or {@code ()
   * -> export.source().stats().cache()}: the one cache budget the server's exports share. Replaces
   * an earlier one.
   */
  public NbdMetrics registerCache(Supplier<CacheStats> stats) {
    cache = Objects.requireNonNull(stats, "stats");
    return this;
  }

  /** The registry holding these metrics (to add others, or to scrape without HTTP). */
  public PrometheusRegistry registry() {
    return registry;
  }

  /**
   * Serves {@code GET /metrics} on {@code address} (port 0: any free port) from daemon threads and
   * returns the address bound.
   *
   * @throws IllegalStateException if already started
   */
  public synchronized InetSocketAddress start(InetSocketAddress address) throws IOException {
    if (http != null) {
      throw new IllegalStateException(
          "metrics exporter: already started on port " + http.getPort());
    }
    HTTPServer s =
        HTTPServer.builder()
            .inetAddress(address.getAddress())
            .port(address.getPort())
            .registry(registry)
            .buildAndStart();
    http = s;
    return new InetSocketAddress(address.getAddress(), s.getPort());
  }

  /** Stops the HTTP exporter, if started; the counters stay. Idempotent. */
  @Override
  public synchronized void close() {
    HTTPServer s = http;
    http = null;
    if (s != null) {
      s.close();
    }
  }

  @Override
  public void connected(String peer) {
    connections.inc();
    connectionsOpen.inc();
  }

  @Override
  public void disconnected(String peer, String reason) {
    connectionsOpen.dec();
  }

  @Override
  public void protocolError(String peer, String message) {
    protocolErrors.inc();
  }

  @Override
  public void request(String export, String command, long bytes, String error, long nanos) {
    ConcurrentHashMap<String, CommandPoints> byCommand = points.get(export);
    if (byCommand == null) {
      byCommand = points.computeIfAbsent(export, e -> new ConcurrentHashMap<>());
    }
    CommandPoints p = byCommand.get(command);
    if (p == null) {
      p = byCommand.computeIfAbsent(command, c -> new CommandPoints(export, c));
    }
    ResultPoints r = error == null ? p.ok : p.result(error);
    r.requests.inc();
    if (bytes > 0) {
      r.bytes.inc(bytes);
    }
    p.duration.observe(nanos * 1e-9);
  }

  @Override
  public void corruption(String export, CorruptBlockException e) {
    corruptions.labelValues(export, e.area().toString()).inc(); // rare: no point in caching
  }

  /** One command's data points on one export. */
  private final class CommandPoints {
    final String export;
    final String command;
    final DistributionDataPoint duration;
    final ResultPoints ok;
    final ConcurrentHashMap<String, ResultPoints> errors = new ConcurrentHashMap<>();

    CommandPoints(String export, String command) {
      this.export = export;
      this.command = command;
      this.duration = NbdMetrics.this.duration.labelValues(export, command);
      this.ok = new ResultPoints(export, command, OK);
    }

    ResultPoints result(String error) {
      ResultPoints r = errors.get(error);
      return r != null
          ? r
          : errors.computeIfAbsent(
              error, e -> new ResultPoints(export, command, e.toLowerCase(Locale.ROOT)));
    }
  }

  /** The counters of one (export, command, result). */
  private final class ResultPoints {
    final CounterDataPoint requests;
    final CounterDataPoint bytes;

    ResultPoints(String export, String command, String result) {
      this.requests = NbdMetrics.this.requests.labelValues(export, command, result);
      this.bytes = NbdMetrics.this.bytes.labelValues(export, command, result);
    }
  }

  private void registerScraped() {
    GaugeWithCallback.builder()
        .name("jverity_nbd_export_size_bytes")
        .help("Bytes of verified data served")
        .labelNames("export")
        .callback(cb -> exports.forEach(e -> cb.call(e.size(), e.name())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("jverity_nbd_export_verified")
        .help("1 while no block of the export has failed verification (status V), 0 after (C)")
        .labelNames("export")
        .callback(
            cb ->
                exports.forEach(e -> cb.call(e.source().stats().status() == 'V' ? 1 : 0, e.name())))
        .register(registry);
    CounterWithCallback.builder()
        .name("jverity_nbd_export_corruptions_total")
        .help("Corruptions the export's reader has seen since it opened (also when ignored)")
        .labelNames("export")
        .callback(cb -> exports.forEach(e -> cb.call(e.source().stats().corruptions(), e.name())))
        .register(registry);
    CounterWithCallback.builder()
        .name("jverity_nbd_export_fec_corrections_total")
        .help(
            "Blocks of the export that forward error correction corrected (verified against the tree)")
        .labelNames("export")
        .callback(cb -> exports.forEach(e -> cb.call(e.source().stats().repaired(), e.name())))
        .register(registry);
    CounterWithCallback.builder()
        .name("jverity_nbd_verifications_total")
        .help(
            "Read requests verified inline on the connection's thread or through the hashing pool")
        .labelNames("export", "path")
        .callback(
            cb ->
                exports.forEach(
                    e -> {
                      SourceStats s = e.source().stats();
                      cb.call(s.inlineReads(), e.name(), "inline");
                      cb.call(s.pooledReads(), e.name(), "pool");
                    }))
        .register(registry);
    CounterWithCallback.builder()
        .name("jverity_nbd_verification_fallbacks_total")
        .help("Inline verifications that met a cache miss and handed the rest to the pool")
        .labelNames("export")
        .callback(cb -> exports.forEach(e -> cb.call(e.source().stats().fallbacks(), e.name())))
        .register(registry);

    CounterWithCallback.builder()
        .name("jverity_nbd_device_errors_total")
        .help(
            "Reads of an export's data or hash file that failed (clients got EIO), by kind:"
                + " truncated (the file shrank under the server) or io")
        .labelNames("export", "kind")
        .callback(
            cb ->
                deviceErrors.forEach(
                    d -> {
                      cb.call(d.truncated().getAsLong(), d.export(), "truncated");
                      cb.call(d.io().getAsLong(), d.export(), "io");
                    }))
        .register(registry);

    cacheCounter("hits", "Hash block cache lookups that found their block", CacheStats::hits);
    cacheCounter("misses", "Hash block cache lookups that did not", CacheStats::misses);
    cacheCounter("loads", "Hash device reads made to fill the cache", CacheStats::loads);
    cacheCounter(
        "evictions", "Hash blocks dropped to stay within the budget", CacheStats::evictions);
    GaugeWithCallback.builder()
        .name("jverity_nbd_hash_cache_bytes")
        .help("Bytes of hash blocks cached now")
        .callback(cb -> withCache(c -> cb.call(c.cachedBytes())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("jverity_nbd_hash_cache_capacity_bytes")
        .help("The hash block cache's budget")
        .callback(cb -> withCache(c -> cb.call(c.capacityBytes())))
        .register(registry);
  }

  private void withCache(Consumer<CacheStats> use) {
    Supplier<CacheStats> c = cache;
    if (c != null) {
      use.accept(c.get());
    }
  }

  private interface StatField {
    long of(CacheStats s);
  }

  private void cacheCounter(String what, String help, StatField field) {
    CounterWithCallback.builder()
        .name("jverity_nbd_hash_cache_" + what + "_total")
        .help(help)
        .callback(cb -> withCache(c -> cb.call(field.of(c))))
        .register(registry);
  }
}
