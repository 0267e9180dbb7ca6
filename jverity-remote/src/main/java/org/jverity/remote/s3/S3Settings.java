package org.jverity.remote.s3;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Where and how one S3 object is reached, as resolved from the option, the environment and the
 * profile. No keys in it: what {@link #describe()} prints may go to logs and {@code status}.
 *
 * @param endpoint the service's base URL without the bucket ({@code
 *     https://s3.REGION.amazonaws.com}, or a custom endpoint as given, its path kept)
 * @param region the signing region
 * @param pathStyle {@code endpoint/bucket/key} when true, {@code bucket.endpoint-host/key} when not
 * @param custom whether the endpoint came from the option, the environment or the profile
 * @param credentialsSource where the keys were found, or {@code anonymous}
 */
public record S3Settings(
    URI endpoint, String region, boolean pathStyle, boolean custom, String credentialsSource) {
  static final String DEFAULT_REGION = "us-east-1";
  static final String ANONYMOUS = "anonymous (no credentials found)";

  /**
   * Bucket names that can be a DNS label under AWS's wildcard certificate: no dots (they would make
   * more labels than {@code *.s3.REGION.amazonaws.com} covers), no upper case or underscores
   * (legacy us-east-1 names).
   */
  private static final Pattern VIRTUAL_HOSTABLE =
      Pattern.compile("[a-z0-9][a-z0-9-]{1,61}[a-z0-9]");

  /**
   * Resolves the settings for one bucket as the AWS CLI does. Endpoint: {@code endpointOption}
   * (jverity's {@code --s3-endpoint}), {@code AWS_ENDPOINT_URL_S3}, {@code AWS_ENDPOINT_URL}, the
   * profile's {@code endpoint_url}, else AWS's own for the region. Region: {@code AWS_REGION},
   * {@code AWS_DEFAULT_REGION}, the profile's, else {@code us-east-1}. Path style for a custom
   * endpoint (local servers have no wildcard DNS) and for buckets that cannot be a host name
   * (dotted, legacy upper-case), virtual-hosted style on AWS; the profile's {@code s3 =
   * addressing_style = path|virtual} overrides both.
   *
   * @param endpointOption an endpoint URL given on the command line or in the configuration, or
   *     null
   * @param keys what {@link AwsEnvironment#credentials()} found, or null
   */
  public static S3Settings resolve(
      AwsEnvironment env, String endpointOption, String bucket, AwsCredentials keys)
      throws IOException {
    AwsProfile profile = env.profile();
    String region = first(env.get("AWS_REGION"), env.get("AWS_DEFAULT_REGION"));
    region = first(region, profile.config("region"), DEFAULT_REGION);
    String given =
        first(
            blankToNull(endpointOption),
            env.get("AWS_ENDPOINT_URL_S3"),
            env.get("AWS_ENDPOINT_URL"),
            profile.config("endpoint_url"));
    URI endpoint =
        given == null ? URI.create("https://s3." + region + ".amazonaws.com") : endpoint(given);
    String style = profile.config("s3.addressing_style");
    boolean pathStyle =
        switch (style == null ? "auto" : style.toLowerCase(Locale.ROOT)) {
          case "path" -> true;
          case "virtual" -> false;
          default -> given != null || !VIRTUAL_HOSTABLE.matcher(bucket).matches();
        };
    return new S3Settings(
        endpoint, region, pathStyle, given != null, keys == null ? ANONYMOUS : keys.source());
  }

  /** The URL of the object, its key encoded as it is signed. */
  public URI objectUri(S3Location location) {
    String base = endpoint.getRawPath() == null ? "" : endpoint.getRawPath();
    if (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    String host = endpoint.getRawAuthority();
    String key = S3Encoding.encodePath(location.key());
    String path;
    if (pathStyle) {
      path = base + "/" + S3Encoding.encode(location.bucket()) + "/" + key;
    } else {
      host = location.bucket() + "." + host;
      path = base + "/" + key;
    }
    String query =
        location.versionId() == null ? "" : "?versionId=" + S3Encoding.encode(location.versionId());
    return URI.create(endpoint.getScheme() + "://" + host + path + query);
  }

  /** One line for messages and {@code status}: endpoint, addressing, region, key source. */
  public String describe() {
    return "S3 endpoint "
        + endpoint
        + (custom ? "" : " (AWS)")
        + ", "
        + (pathStyle ? "path" : "virtual-hosted")
        + " style, region "
        + region
        + ", credentials: "
        + credentialsSource;
  }

  private static URI endpoint(String given) throws IOException {
    URI uri;
    try {
      uri = new URI(given);
    } catch (URISyntaxException e) {
      throw new IOException("S3 endpoint must be an http:// or https:// URL: " + given);
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
      throw new IOException("S3 endpoint must be an http:// or https:// URL with a host: " + given);
    }
    if (uri.getRawQuery() != null || uri.getRawUserInfo() != null) {
      throw new IOException("S3 endpoint must have no query or user info: " + uri.getHost());
    }
    return uri;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }

  private static String first(String... candidates) {
    for (String c : candidates) {
      if (c != null) {
        return c;
      }
    }
    return null;
  }
}
