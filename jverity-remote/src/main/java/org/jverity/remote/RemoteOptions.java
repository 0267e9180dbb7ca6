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

  /** The defaults: no disk cache, 256 MiB in memory, 16 requests in flight, 30 s, 4 retries. */
  public static final RemoteOptions DEFAULTS = builder().build();

  /** A builder at {@link #DEFAULTS}. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder at these options, to change some. */
  public Builder toBuilder() {
    return new Builder()
        .cache(cacheDir, cacheMax)
        .caCert(caCert)
        .s3Endpoint(s3Endpoint)
        .onChange(onChange)
        .parallel(parallel)
        .timeouts(timeout, retries, retryBudget)
        .chunkSize(chunkSize)
        .readaheadMax(readaheadMax);
  }

  public RemoteOptions withCache(Path dir, long max) {
    return toBuilder().cache(dir, max).build();
  }

  public RemoteOptions withCaCert(Path file) {
    return toBuilder().caCert(file).build();
  }

  public RemoteOptions withS3Endpoint(String endpoint) {
    return toBuilder().s3Endpoint(endpoint).build();
  }

  public RemoteOptions withOnChange(OnChange mode) {
    return toBuilder().onChange(mode).build();
  }

  public RemoteOptions withTimeouts(Duration timeout, int retries, Duration retryBudget) {
    return toBuilder().timeouts(timeout, retries, retryBudget).build();
  }

  /** The options one at a time, each at its default until set: the defaults are said here only. */
  public static final class Builder {
    private Path cacheDir;
    private long cacheMax = 256L << 20;
    private Path caCert;
    private String s3Endpoint;
    private OnChange onChange = OnChange.FAIL;
    private int parallel = 16;
    private Duration timeout = Duration.ofSeconds(30);
    private int retries = 4;
    private Duration retryBudget = Duration.ofSeconds(30);
    private int chunkSize = 64 << 10;
    private int readaheadMax = 8 << 20;

    private Builder() {}

    /** The disk cache's directory (null: memory only) and its size in bytes. */
    public Builder cache(Path dir, long max) {
      cacheDir = dir;
      cacheMax = max;
      return this;
    }

    public Builder caCert(Path file) {
      caCert = file;
      return this;
    }

    public Builder s3Endpoint(String endpoint) {
      s3Endpoint = endpoint;
      return this;
    }

    public Builder onChange(OnChange mode) {
      onChange = mode;
      return this;
    }

    public Builder parallel(int n) {
      parallel = n;
      return this;
    }

    public Builder timeouts(Duration timeout, int retries, Duration retryBudget) {
      this.timeout = timeout;
      this.retries = retries;
      this.retryBudget = retryBudget;
      return this;
    }

    public Builder chunkSize(int bytes) {
      chunkSize = bytes;
      return this;
    }

    public Builder readaheadMax(int bytes) {
      readaheadMax = bytes;
      return this;
    }

    public RemoteOptions build() {
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
  }

  /**
   * Whether {@code location} names a remote object ({@code http://}, {@code https://}, {@code
   * s3://}).
   */
  public static boolean isRemote(String location) {
    return Locations.isRemote(location);
  }
}
