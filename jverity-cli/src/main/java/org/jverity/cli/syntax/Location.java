package org.jverity.cli.syntax;

import java.net.URI;
import java.net.URISyntaxException;
import org.jverity.server.Locations;

/**
 * Where a device is, as a command line or a config file names it: a file name ({@link FileName}),
 * or a URL of a remote object, {@code http://HOST/PATH}, {@code https://HOST/PATH} or {@code
 * s3://BUCKET/KEY}. Kept as text: only a remote location is ever handed to jverity-remote.
 * Stateless.
 */
public final class Location {
  static final String EXPECTED = "a file name, an http(s)://HOST/PATH URL or s3://BUCKET/KEY";

  private Location() {}

  /** {@code value} as a location: a path's text ({@link FileName}'s) or the URL as given. */
  public static String parse(String value) {
    if (!Locations.isRemote(value)) {
      return FileName.parse(value).toString();
    }
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
