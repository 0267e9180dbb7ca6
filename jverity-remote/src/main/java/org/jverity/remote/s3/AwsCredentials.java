package org.jverity.remote.s3;

import java.util.Objects;

/**
 * Keys that sign S3 requests, and where they were found (for messages: the source, never a key).
 *
 * @param accessKeyId the access key id ({@code AKIA...}, {@code ASIA...} for session keys)
 * @param secretAccessKey the secret; never printed
 * @param sessionToken the session token of temporary keys, or null
 * @param source where the chain found them: {@code environment}, {@code profile NAME (FILE)}
 */
public record AwsCredentials(
    String accessKeyId, String secretAccessKey, String sessionToken, String source) {
  public AwsCredentials {
    Objects.requireNonNull(accessKeyId, "accessKeyId");
    Objects.requireNonNull(secretAccessKey, "secretAccessKey");
    Objects.requireNonNull(source, "source");
  }

  /** Whether both describe the same keys (the source aside): a refresh that changed nothing. */
  public boolean sameKeys(AwsCredentials other) {
    return other != null
        && accessKeyId.equals(other.accessKeyId)
        && secretAccessKey.equals(other.secretAccessKey)
        && Objects.equals(sessionToken, other.sessionToken);
  }

  /** The key id and the source only: a record's default would print the secret. */
  @Override
  public String toString() {
    return "AwsCredentials[" + accessKeyId + " from " + source + "]";
  }
}
