package org.jverity.cli.syntax;

import org.jverity.server.Locations;

/**
 * Where a device is, as a command line or a config file names it: a file name ({@link FileName}),
 * or a URL of a remote object, {@code http://HOST/PATH}, {@code https://HOST/PATH} or {@code
 * s3://BUCKET/KEY} ({@link RemoteUrl}). Kept as text: only a remote location is ever handed to
 * jverity-remote. Stateless.
 */
public final class Location {
  private Location() {}

  /** {@code value} as a location: a path's text ({@link FileName}'s) or the URL as given. */
  public static String parse(String value) {
    return Locations.isRemote(value) ? RemoteUrl.parse(value) : FileName.parse(value).toString();
  }
}
