package org.jverity.remote;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import org.jverity.image.DeviceSource;
import org.jverity.io.BlockDevice;
import org.jverity.remote.cache.ChunkCache;
import org.jverity.remote.http.HttpOrigin;
import org.jverity.remote.http.HttpTransport;
import org.jverity.remote.http.RequestAuthorizer;
import org.jverity.remote.s3.AwsEnvironment;
import org.jverity.remote.s3.S3Location;
import org.jverity.remote.s3.S3Origin;

/**
 * The {@link DeviceSource} that takes URLs: {@code http://} and {@code https://} (range requests),
 * {@code s3://bucket/key} (SigV4), anything else a local path. Every remote device it opens shares
 * one cache and one {@link RemoteStats}; close it after the devices.
 */
public final class RemoteSource implements DeviceSource, AutoCloseable {
  private final RemoteOptions options;
  private final RemoteStats stats = new RemoteStats();
  private final AwsEnvironment aws;
  private ChunkCache cache; // opened with the first device; guarded by this
  private HttpTransport transport; // made with the first remote device; guarded by this

  /** URLs reached with {@code options}; S3 credentials from this process's environment. */
  public RemoteSource(RemoteOptions options) {
    this(options, null);
  }

  /**
   * As {@link #RemoteSource(RemoteOptions)}, S3 credentials, region and endpoint from {@code aws}
   * (null: this process's environment, read when the first {@code s3://} URL is opened).
   */
  public RemoteSource(RemoteOptions options, AwsEnvironment aws) {
    this.options = options;
    this.aws = aws;
  }

  public RemoteOptions options() {
    return options;
  }

  public RemoteStats stats() {
    return stats;
  }

  /**
   * A local path as {@link DeviceSource#LOCAL} opens it; a URL as a device whose open is under way
   * (its size probe in flight, see {@link OpeningDevice}): a malformed URL is refused here, what
   * the origin answers by the device's first size or read. The probe asks for the first chunk, so
   * that chunk is in the cache when the first read comes.
   */
  @Override
  public BlockDevice open(String location) throws IOException {
    return open(location, stats, ReopenListener.NONE);
  }

  /**
   * This source with its devices counting into {@code into} instead of the source's counters: one
   * export's traffic, apart from the other exports that share the cache and the connections.
   */
  public DeviceSource counting(RemoteStats into) {
    return counting(into, ReopenListener.NONE);
  }

  /** As {@link #counting(RemoteStats)}, its devices telling {@code reopens} of each reopen. */
  public DeviceSource counting(RemoteStats into, ReopenListener reopens) {
    return new DeviceSource() {
      @Override
      public BlockDevice open(String location) throws IOException {
        return RemoteSource.this.open(location, into, reopens);
      }

      @Override
      public boolean same(String a, String b) throws IOException {
        return RemoteSource.this.same(a, b);
      }
    };
  }

  private BlockDevice open(String location, RemoteStats stats, ReopenListener reopens)
      throws IOException {
    if (!RemoteOptions.isRemote(location)) {
      return LOCAL.open(location);
    }
    if (location.startsWith("s3://")) {
      S3Location parsed;
      try {
        parsed = S3Location.parse(location);
      } catch (IllegalArgumentException e) {
        throw new OriginException(e.getMessage(), 0);
      }
      return new OpeningDevice(
          parsed.toString(), () -> device(s3(location, stats), stats, reopens));
    }
    URI uri;
    try {
      uri = new URI(location);
    } catch (URISyntaxException e) {
      throw new OriginException("not a URL: " + e.getMessage(), 0);
    }
    String description = HttpOrigin.describe(uri);
    return new OpeningDevice(
        description,
        () ->
            device(
                HttpOrigin.open(
                    uri,
                    description,
                    transport(),
                    options,
                    stats,
                    RequestAuthorizer.NONE,
                    options.chunkSize()),
                stats,
                reopens));
  }

  private Origin s3(String location, RemoteStats stats) throws IOException {
    AwsEnvironment env = aws != null ? aws : AwsEnvironment.system();
    return S3Origin.open(
        location, options, transport(), stats, env, Clock.systemUTC(), options.chunkSize());
  }

  private synchronized HttpTransport transport() throws IOException {
    if (transport == null) {
      transport = new HttpTransport(options);
    }
    return transport;
  }

  /**
   * Local paths as {@link DeviceSource#LOCAL} says; two URLs are one object when they are equal.
   */
  @Override
  public boolean same(String a, String b) throws IOException {
    boolean ra = RemoteOptions.isRemote(a);
    boolean rb = RemoteOptions.isRemote(b);
    if (ra || rb) {
      return ra && rb && a.equals(b);
    }
    return LOCAL.same(a, b);
  }

  /**
   * A device over {@code origin} (which it then owns), sharing this source's cache and counters.
   * The cache opens with the first device: a cache directory is locked from then on.
   */
  public RemoteDevice device(Origin origin) throws IOException {
    return device(origin, stats, ReopenListener.NONE);
  }

  private RemoteDevice device(Origin origin, RemoteStats counters, ReopenListener reopens)
      throws IOException {
    return new RemoteDevice(origin, cache(), options, counters, reopens);
  }

  private synchronized ChunkCache cache() throws IOException {
    if (cache == null) {
      cache = ChunkCache.open(options, stats);
    }
    return cache;
  }

  /** Closes the cache (unlocking its directory); the devices must be closed first. */
  @Override
  public synchronized void close() {
    if (transport != null) {
      transport.close();
      transport = null;
    }
    if (cache != null) {
      try {
        cache.close();
      } catch (IOException e) {
        System.getLogger(RemoteSource.class.getName())
            .log(Level.WARNING, "closing the cache: " + e.getMessage());
      }
      cache = null;
    }
  }
}
