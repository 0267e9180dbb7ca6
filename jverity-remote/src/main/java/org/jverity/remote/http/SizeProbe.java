package org.jverity.remote.http;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import org.jverity.remote.OriginException;

/**
 * The request that sizes an object without a HEAD: {@code GET Range: bytes=0-(n-1)}. A 206 with
 * {@code Content-Range: bytes 0-L/TOTAL} (L = min(n, TOTAL) - 1) says the size and brings the
 * object's first bytes, kept for the device; a 416 with {@code bytes * /0} (S3) or a 200 with no
 * body (nginx: whole or not, an empty object has no byte to send) is an empty object. Anything else
 * is refused in one line: a 200 (the server ignores ranges), another range.
 */
final class SizeProbe {
  private final int asked;
  private ByteBuffer bytes; // the buffer of the latest attempt that was data

  SizeProbe(int asked) {
    this.asked = asked;
  }

  String range() {
    return "bytes=0-" + (asked - 1);
  }

  /** The request in messages: {@code size probe (bytes 0-65535)}. */
  String what() {
    return "size probe (bytes 0-" + (asked - 1) + ")";
  }

  /** For an exact answer, a fresh buffer of the bytes it says it sends (at most those asked). */
  synchronized ByteBuffer target(HttpResponse.ResponseInfo info) {
    ContentRange cr = ContentRange.parse(info.headers().firstValue("content-range").orElse(null));
    if (info.statusCode() != 206 || !exact(cr)) {
      return null;
    }
    bytes = ByteBuffer.allocate((int) (cr.last() + 1));
    return bytes;
  }

  private boolean exact(ContentRange cr) {
    return cr != null
        && cr.first() == 0
        && cr.total() > 0
        && cr.last() == Math.min(asked, cr.total()) - 1;
  }

  /** The object's size from the answer, or one line saying what was wrong with it. */
  long size(String description, Exchanges.Reply r) throws OriginException {
    ContentRange cr = ContentRange.parse(r.header("content-range"));
    String prefix = description + ": " + what() + ": ";
    if (r.status() == 200 && "0".equals(r.header("content-length"))) {
      return 0;
    }
    if (r.status() == 200) {
      throw new OriginException(
          prefix + "answered 200 to a range request (the server ignores ranges)", 200);
    }
    if (r.status() == 206 && r.text() == null && exact(cr)) {
      return cr.total();
    }
    if (r.status() == 416 && cr != null && cr.first() < 0 && cr.total() == 0) {
      return 0; // an empty object: no byte 0 to send
    }
    if (r.status() == 206 || r.status() == 416) {
      throw new OriginException(
          prefix + "answered Content-Range " + r.header("content-range"), r.status());
    }
    throw new OriginException(prefix + r.describe(), r.status());
  }

  /** The first bytes, once a 206 was sized: position 0, limit the bytes sent; else null. */
  synchronized ByteBuffer bytes() {
    return bytes == null ? null : bytes.clear();
  }
}
