package org.jverity.image;

import java.nio.file.Path;

/**
 * Where a device is: a local path, or a URL ({@code http://}, {@code https://}, {@code s3://}). The
 * one rule, here beside {@link DeviceSource} so that a command over local files asks it without
 * loading a class of jverity-remote (nor java.net.http): its start-up budget is ~100 ms. jverity-
 * remote's {@code RemoteOptions.isRemote} asks it too. Stateless.
 */
public final class Locations {
  private Locations() {}

  /** Whether {@code location} is a URL a remote device is opened from. */
  public static boolean isRemote(String location) {
    return location != null
        && (location.startsWith("http://")
            || location.startsWith("https://")
            || location.startsWith("s3://"));
  }

  /** Whether any of {@code locations} (nulls ignored) is remote. */
  public static boolean anyRemote(String... locations) {
    for (String l : locations) {
      if (isRemote(l)) {
        return true;
      }
    }
    return false;
  }

  /** A local location as a path; null for a URL (which is no file of this machine). */
  public static Path file(String location) {
    return location == null || isRemote(location) ? null : Path.of(location);
  }

  /**
   * How status names a device: a local file by its absolute path, a URL as given (its origin's
   * description, credentials and signed query parameters removed, is {@code status}'s "origin").
   */
  public static String display(String location) {
    return isRemote(location)
        ? withoutQuery(location)
        : Path.of(location).toAbsolutePath().toString();
  }

  /**
   * A URL without its query and user information: a presigned URL's signature and a password are
   * credentials, never printed.
   */
  public static String withoutQuery(String url) {
    int q = url.indexOf('?');
    String u = q < 0 ? url : url.substring(0, q);
    int scheme = u.indexOf("://");
    int path = u.indexOf('/', scheme + 3);
    int at = u.lastIndexOf('@', path < 0 ? u.length() - 1 : path);
    return scheme >= 0 && at > scheme ? u.substring(0, scheme + 3) + u.substring(at + 1) : u;
  }
}
