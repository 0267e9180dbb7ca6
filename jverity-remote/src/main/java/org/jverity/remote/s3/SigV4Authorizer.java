package org.jverity.remote.s3;

import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.util.Map;
import org.jverity.remote.http.RequestAuthorizer;

/**
 * Signs each attempt of an S3 request with the keys the credential chain found, at the time it is
 * sent; sends it unsigned when there are none (public buckets). {@link #refresh()} reads the chain
 * again, for keys that expired ({@code ExpiredToken}) or were rotated in the files. Thread-safe.
 */
public final class SigV4Authorizer implements RequestAuthorizer {
  private final AwsEnvironment env;
  private final SigV4 signer;
  private final Clock clock;
  private volatile AwsCredentials keys; // null: anonymous

  /**
   * @param keys what {@link AwsEnvironment#credentials()} found at open, or null
   */
  public SigV4Authorizer(AwsEnvironment env, String region, AwsCredentials keys, Clock clock) {
    this.env = env;
    this.signer = new SigV4(region);
    this.clock = clock;
    this.keys = keys;
  }

  /** Whether requests go unsigned. */
  public boolean anonymous() {
    return keys == null;
  }

  /** GET and HEAD have no body: the empty payload's hash is signed, as AWS's example does. */
  @Override
  public Map<String, String> headers(String method, URI uri, Map<String, String> headers) {
    AwsCredentials now = keys;
    if (now == null) {
      return Map.of();
    }
    return signer.headers(now, clock.instant(), method, uri, headers, SigV4.EMPTY_PAYLOAD);
  }

  /** True when the chain now gives other keys than those in use (which it then uses). */
  @Override
  public synchronized boolean refresh() throws IOException {
    AwsCredentials fresh = env.credentials();
    if (fresh == null || fresh.sameKeys(keys)) {
      return false;
    }
    keys = fresh;
    return true;
  }
}
