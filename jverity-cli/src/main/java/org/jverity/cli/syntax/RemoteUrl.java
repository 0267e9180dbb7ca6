package org.jverity.cli.syntax;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * The URL of a remote object: {@code http(s)://HOST/PATH} or {@code s3://BUCKET/KEY}, refused
 * before anything is fetched when it names no object. Apart from {@link Location} so that a local
 * path loads none of the URL parsing. Stateless.
 */
final class RemoteUrl {
  static final String EXPECTED = "a file name, an http(s)://HOST/PATH URL or s3://BUCKET/KEY";

  private RemoteUrl() {}

  static String parse(String value) {
    if (value.startsWith("s3://")) {
      String rest = value.substring("s3://".length());
      int slash = rest.indexOf('/');
      if (slash <= 0 || slash == rest.length() - 1) {
        throw new BadValue(EXPECTED);
      }
      return value;
    }
    try {
      URI uri = new URI(value);
      if (uri.getHost() == null || uri.getRawPath() == null || uri.getRawPath().length() <= 1) {
        throw new BadValue(EXPECTED);
      }
    } catch (URISyntaxException e) {
      throw new BadValue(EXPECTED);
    }
    return value;
  }
}
