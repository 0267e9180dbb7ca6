package org.jverity.remote.s3;

/**
 * An object named {@code s3://bucket/key}, optionally {@code ?versionId=ID}. The key is taken as
 * written (it may hold {@code /}, spaces, any UTF-8): S3 keys are not URL-encoded in an {@code
 * s3://} name, as the AWS CLI writes them.
 *
 * @param bucket the bucket's name
 * @param key the object's key, never empty
 * @param versionId the version to read, or null for the current one
 */
public record S3Location(String bucket, String key, String versionId) {
  private static final String SCHEME = "s3://";
  private static final String VERSION = "?versionId=";

  /**
   * Parses {@code s3://bucket/key[?versionId=ID]}.
   *
   * @throws IllegalArgumentException one line saying what is missing
   */
  public static S3Location parse(String url) {
    if (!url.startsWith(SCHEME)) {
      throw new IllegalArgumentException("not an S3 URL (s3://bucket/key): " + url);
    }
    String rest = url.substring(SCHEME.length());
    String versionId = null;
    int v = rest.lastIndexOf(VERSION);
    if (v >= 0) {
      versionId = rest.substring(v + VERSION.length());
      rest = rest.substring(0, v);
      if (versionId.isEmpty()) {
        throw new IllegalArgumentException("S3 URL has an empty versionId: " + url);
      }
    }
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    if (bucket.isEmpty()) {
      throw new IllegalArgumentException("S3 URL has no bucket (s3://bucket/key): " + url);
    }
    if (slash < 0 || slash == rest.length() - 1) {
      throw new IllegalArgumentException(
          "S3 URL names a bucket, not an object (s3://bucket/key): " + url);
    }
    return new S3Location(bucket, rest.substring(slash + 1), versionId);
  }

  /** {@code s3://bucket/key}, the version if one was asked: the name messages use. */
  @Override
  public String toString() {
    return SCHEME + bucket + "/" + key + (versionId == null ? "" : VERSION + versionId);
  }
}
