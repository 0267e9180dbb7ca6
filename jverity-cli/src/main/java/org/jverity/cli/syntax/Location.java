package org.jverity.cli.syntax;

import org.jverity.image.Locations;

/**
 * Where a device is, as a command line or a config file names it: a file name ({@link FileName}),
 * or a URL of a remote object, {@code http://HOST/PATH}, {@code https://HOST/PATH} or {@code
 * s3://BUCKET/KEY} ({@link RemoteUrl}). Kept as text: only a remote location is ever handed to
 * jverity-remote. A URL of another scheme ({@code ftp://}, {@code file://}) is refused as such, not
 * taken for a file name that then does not exist; a file whose name starts so is named {@code
 * ./ftp://...}. Stateless.
 */
public final class Location {
  private Location() {}

  /** {@code value} as a location: a path's text ({@link FileName}'s) or the URL as given. */
  public static String parse(String value) {
    if (Locations.isRemote(value)) {
      return RemoteUrl.parse(value);
    }
    String scheme = scheme(value);
    if (scheme != null) {
      throw new BadValue(
          "a file name or an http://, https:// or s3:// URL; scheme "
              + scheme
              + ":// is not supported");
    }
    return FileName.parse(value).toString();
  }

  /**
   * Whether {@code value} has the shape of a URL, {@code SCHEME://...} (RFC 3986's scheme: a
   * letter, then letters, digits, {@code +}, {@code -} or {@code .}), whether or not jverity reads
   * it. A name with a colon and no {@code //} after it ({@code disk:1.img}) is a file name.
   */
  public static boolean isUrl(String value) {
    return scheme(value) != null || Locations.isRemote(value);
  }

  /** The scheme of a URL-shaped {@code value}, or null. */
  private static String scheme(String value) {
    int end = value.indexOf("://");
    if (end <= 0 || !asciiLetter(value.charAt(0))) {
      return null;
    }
    for (int i = 1; i < end; i++) {
      char c = value.charAt(i);
      if (!asciiLetter(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.') {
        return null;
      }
    }
    return value.substring(0, end);
  }

  private static boolean asciiLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }
}
