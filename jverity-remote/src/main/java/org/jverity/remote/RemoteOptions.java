package org.jverity.remote;

import java.nio.file.Path;
import java.time.Duration;
import org.jverity.image.Locations;

/**
 * How remote devices are reached and cached; one set per {@link RemoteSource} (per export, or the
 * server's {@code [generic]} settings).
 *
 * @param cacheDir where fetched chunks are kept across restarts; null: a cache in memory only
 * @param cacheMax the cache's bound in bytes (on disk, or in memory without a directory)
 * @param caCert a PEM file of CA certificates trusted for HTTPS instead of the system's; or null
 * @param s3Endpoint an S3 endpoint URL overriding the environment's and AWS's; or null
 * @param onChange what a device does when its object is replaced under it
 * @param parallel range requests in flight per origin host, at most
 * @param timeout one request's limit, connect to last byte
 * @param retries attempts after the first, at most, for a transient fault
 * @param retryBudget the time a fetch may spend on retries, at most
 * @param chunkSize the unit fetched and cached, bytes (a power of two, at least 4 KiB)
 * @param readaheadMax the widest read-ahead window for a sequential stream, bytes
 */
public record RemoteOptions(
    Path cacheDir,
    long cacheMax,
    Path caCert,
    String s3Endpoint,
    OnChange onChange,
    int parallel,
    Duration timeout,
    int retries,
    Duration retryBudget,
    int chunkSize,
    int readaheadMax) {

  /** What a device does when its object changes under a running server. */
  public enum OnChange {
    /** EIO for every later read of that export, said once. */
    FAIL,
    /** Open the new object and continue if it still verifies against the same root. */
    REOPEN
  }

  public static final RemoteOptions DEFAULTS =
      new RemoteOptions(
          null,
          256L << 20,
          null,
          null,
          OnChange.FAIL,
          16,
          Duration.ofSeconds(30),
          4,
          Duration.ofSeconds(30),
          64 << 10,
          8 << 20);

  public RemoteOptions withCache(Path dir, long max) {
    return new RemoteOptions(
        dir,
        max,
        caCert,
        s3Endpoint,
        onChange,
        parallel,
        timeout,
        retries,
        retryBudget,
        chunkSize,
        readaheadMax);
  }

  public RemoteOptions withCaCert(Path file) {
    return new RemoteOptions(
        cacheDir,
        cacheMax,
        file,
        s3Endpoint,
        onChange,
        parallel,
        timeout,
        retries,
        retryBudget,
        chunkSize,
        readaheadMax);
  }

  public RemoteOptions withS3Endpoint(String endpoint) {
    return new RemoteOptions(
        cacheDir,
        cacheMax,
        caCert,
        endpoint,
        onChange,
        parallel,
        timeout,
        retries,
        retryBudget,
        chunkSize,
        readaheadMax);
  }

  public RemoteOptions withOnChange(OnChange mode) {
    return new RemoteOptions(
        cacheDir,
        cacheMax,
        caCert,
        s3Endpoint,
        mode,
        parallel,
        timeout,
        retries,
        retryBudget,
        chunkSize,
        readaheadMax);
  }

  public RemoteOptions withTimeouts(Duration timeout, int retries, Duration retryBudget) {
    return new RemoteOptions(
        cacheDir,
        cacheMax,
        caCert,
        s3Endpoint,
        onChange,
        parallel,
        timeout,
        retries,
        retryBudget,
        chunkSize,
        readaheadMax);
  }

  /**
   * Whether {@code location} names a remote object ({@code http://}, {@code https://}, {@code
   * s3://}).
   */
  public static boolean isRemote(String location) {
    return Locations.isRemote(location);
  }
}
