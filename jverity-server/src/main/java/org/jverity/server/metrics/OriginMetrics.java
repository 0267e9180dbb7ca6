package org.jverity.server.metrics;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.jverity.remote.RemoteStats;

/**
 * The origin metrics of {@link NbdMetrics}, read at scrape time from each remote export's {@link
 * RemoteStats}: counters of origin requests, bytes, retries and failures and of its local cache,
 * the histogram of origin request latency, and whether an object changed under the server. Made by
 * the first remote export, so a server of local files shows none of them. Thread-safe.
 */
final class OriginMetrics {
  private record Origin(String export, RemoteStats stats, BooleanSupplier changed) {}

  private static final String LATENCY = "jverity_origin_request_duration_seconds";

  /** The histogram's bounds: {@link RemoteStats#LATENCY_BOUNDS}, then +Inf. */
  private static final double[] BOUNDS = withInfinity(RemoteStats.LATENCY_BOUNDS);

  private final List<Origin> origins = new CopyOnWriteArrayList<>();

  OriginMetrics(PrometheusRegistry registry) {
    counter(
        registry,
        "jverity_origin_requests_total",
        "Requests sent to origins, retries included",
        s -> s.requests);
    counter(
        registry, "jverity_origin_bytes_total", "Body bytes received from origins", s -> s.bytes);
    counter(
        registry,
        "jverity_origin_retries_total",
        "Origin requests sent again after a transient fault",
        s -> s.retries);
    counter(
        registry,
        "jverity_origin_failures_total",
        "Origin fetches that failed for good, after their retries (the read got EIO)",
        s -> s.failures);
    counter(
        registry,
        "jverity_cache_hits_total",
        "Chunks of remote devices read from the local cache",
        s -> s.cacheHits);
    counter(
        registry,
        "jverity_cache_misses_total",
        "Chunks of remote devices the local cache did not have, fetched from an origin",
        s -> s.cacheMisses);
    counter(
        registry,
        "jverity_cache_evictions_total",
        "Chunks dropped from the local cache to stay within its bound",
        s -> s.cacheEvictions);
    GaugeWithCallback.builder()
        .name("jverity_origin_object_changed")
        .help(
            "1 once a remote object of the export was replaced since open (its reads fail), else 0")
        .labelNames("export")
        .callback(
            cb -> origins.forEach(o -> cb.call(o.changed().getAsBoolean() ? 1 : 0, o.export())))
        .register(registry);
    registry.register((Collector) this::latency);
  }

  void add(String export, RemoteStats stats, BooleanSupplier changed) {
    origins.add(new Origin(export, stats, changed));
  }

  void remove(String export) {
    origins.removeIf(o -> o.export().equals(export));
  }

  private void counter(
      PrometheusRegistry registry,
      String name,
      String help,
      Function<RemoteStats, LongAdder> field) {
    CounterWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames("export")
        .callback(cb -> origins.forEach(o -> cb.call(field.apply(o.stats()).sum(), o.export())))
        .register(registry);
  }

  /** The latency histogram, one data point per export (buckets as counted, not cumulative). */
  private MetricSnapshot latency() {
    HistogramSnapshot.Builder h =
        HistogramSnapshot.builder()
            .name(LATENCY)
            .help("Time of origin requests, from sending to the last body byte (or the failure)");
    for (Origin o : origins) {
      h.dataPoint(
          HistogramSnapshot.HistogramDataPointSnapshot.builder()
              .labels(Labels.of("export", o.export()))
              .classicHistogramBuckets(
                  ClassicHistogramBuckets.of(BOUNDS, o.stats().latencyCounts()))
              .sum(o.stats().latencySeconds())
              .build());
    }
    return h.build();
  }

  private static double[] withInfinity(double[] bounds) {
    double[] all = Arrays.copyOf(bounds, bounds.length + 1);
    all[bounds.length] = Double.POSITIVE_INFINITY;
    return all;
  }
}
