package org.jverity.remote.http;

import java.io.IOException;
import java.net.URI;
import java.util.Map;

/**
 * What makes an origin accept a request: nothing for a public URL; SigV4's headers for S3. Asked
 * for every attempt, retries included, because a signature carries its time.
 */
public interface RequestAuthorizer {
  /** Public objects: no headers. */
  RequestAuthorizer NONE = (method, uri, headers) -> Map.of();

  /**
   * The headers to add to a request ({@code authorization}, {@code x-amz-date}, {@code
   * x-amz-content-sha256}, {@code x-amz-security-token}, ...).
   *
   * @param method {@code GET} or {@code HEAD}
   * @param uri the request's URI, query included
   * @param headers the request's other headers (lower-case names: {@code host} excluded, {@code
   *     range}, {@code if-match}), which a signature may cover
   */
  Map<String, String> headers(String method, URI uri, Map<String, String> headers)
      throws IOException;

  /**
   * The origin said the credentials expired (S3's {@code ExpiredToken}): re-reads them. True when
   * they changed, so the request is worth one more attempt; false when there is nothing newer.
   */
  default boolean refresh() throws IOException {
    return false;
  }
}
