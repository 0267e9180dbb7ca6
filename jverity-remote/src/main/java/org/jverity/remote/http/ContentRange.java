package org.jverity.remote.http;

/**
 * A {@code Content-Range: bytes FIRST-LAST/TOTAL} header, or {@code bytes * /TOTAL} (a 416's): what
 * an origin says it sent, checked against what was asked before a byte of the body is used.
 *
 * @param first the first byte sent, or -1 for {@code *}
 * @param last the last byte sent (inclusive), or -1 for {@code *}
 * @param total the object's size, or -1 when the origin sent {@code *}
 */
record ContentRange(long first, long last, long total) {
  /** The header parsed, or null when it is missing or malformed. */
  static ContentRange parse(String header) {
    if (header == null || !header.startsWith("bytes ")) {
      return null;
    }
    String v = header.substring("bytes ".length()).trim();
    int slash = v.indexOf('/');
    if (slash < 0) {
      return null;
    }
    try {
      String span = v.substring(0, slash);
      String size = v.substring(slash + 1);
      long total = size.equals("*") ? -1 : Long.parseLong(size);
      if (span.equals("*")) {
        return new ContentRange(-1, -1, total);
      }
      int dash = span.indexOf('-');
      if (dash <= 0) {
        return null;
      }
      long first = Long.parseLong(span.substring(0, dash));
      long last = Long.parseLong(span.substring(dash + 1));
      if (first < 0 || last < first || (total >= 0 && last >= total)) {
        return null;
      }
      return new ContentRange(first, last, total);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Whether this is exactly {@code bytes first-last/total}. */
  boolean is(long first, long last, long total) {
    return this.first == first && this.last == last && this.total == total;
  }
}
