package org.jverity.remote.s3;

import java.io.IOException;
import java.time.Clock;
import org.jverity.remote.Origin;
import org.jverity.remote.OriginException;
import org.jverity.remote.RemoteOptions;
import org.jverity.remote.RemoteStats;
import org.jverity.remote.http.HttpOrigin;
import org.jverity.remote.http.HttpTransport;

/**
 * Opens {@code s3://bucket/key}: the object's URL from {@link S3Settings} and the keys from the
 * credential chain, then the same range reads as any HTTP origin, each attempt signed by {@link
 * SigV4Authorizer}. No SDK: only JDK classes, loaded only when an {@code s3://} URL is opened.
 */
public final class S3Origin {
  private S3Origin() {}

  /** Opens with this process's environment and {@code ~/.aws}. */
  public static Origin open(
      String url, RemoteOptions options, HttpTransport transport, RemoteStats stats)
      throws IOException {
    return open(url, options, transport, stats, AwsEnvironment.system(), Clock.systemUTC());
  }

  /**
   * Opens with the given environment and home (tests), signing at {@code clock}'s time.
   *
   * @throws OriginException one line: a malformed URL, or what the origin answered at open (a
   *     refusal names the endpoint and where the keys came from, never the keys)
   */
  public static Origin open(
      String url,
      RemoteOptions options,
      HttpTransport transport,
      RemoteStats stats,
      AwsEnvironment env,
      Clock clock)
      throws IOException {
    return open(url, options, transport, stats, env, clock, 0);
  }

  /**
   * As {@link #open(String, RemoteOptions, HttpTransport, RemoteStats, AwsEnvironment, Clock)},
   * sized by a GET of the first {@code probe} bytes instead of a HEAD when {@code probe > 0} (see
   * {@link HttpOrigin}).
   */
  public static Origin open(
      String url,
      RemoteOptions options,
      HttpTransport transport,
      RemoteStats stats,
      AwsEnvironment env,
      Clock clock,
      int probe)
      throws IOException {
    S3Location location;
    try {
      location = S3Location.parse(url);
    } catch (IllegalArgumentException e) {
      throw new OriginException(e.getMessage(), 0);
    }
    AwsCredentials keys = env.credentials();
    S3Settings settings = S3Settings.resolve(env, options.s3Endpoint(), location.bucket(), keys);
    SigV4Authorizer auth = new SigV4Authorizer(env, settings.region(), keys, clock);
    try {
      return HttpOrigin.open(
          settings.objectUri(location),
          location.toString(),
          transport,
          options,
          stats,
          auth,
          probe);
    } catch (OriginException e) {
      if (e.status() == 400 || e.status() == 401 || e.status() == 403) {
        throw new OriginException(e.getMessage() + " [" + settings.describe() + "]", e.status(), e);
      }
      throw e;
    }
  }
}
