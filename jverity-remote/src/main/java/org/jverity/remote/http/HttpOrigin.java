package org.jverity.remote.http;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.jverity.remote.ObjectChangedException;
import org.jverity.remote.ObjectIdentity;
import org.jverity.remote.Origin;
import org.jverity.remote.OriginException;
import org.jverity.remote.RemoteOptions;
import org.jverity.remote.RemoteStats;

/**
 * An object at an HTTP(S) URL, read by range requests. At open it is resolved once: redirects
 * followed (at most {@value #MAX_REDIRECTS}) and the final URL pinned for every later request (one
 * redirect per block costs a round trip each, and kubevirt's users lost most of an import to it),
 * size and ETag taken from {@code HEAD}, or from {@code GET Range: bytes=0-0} where HEAD is refused
 * (a presigned URL signs its method). Opened with a probe length, it asks no HEAD at all: {@code
 * GET Range: bytes=0-(probe-1)} gives the size, ETag and version from the 206's headers and the
 * object's first bytes, which {@link #takeOpening()} hands to the device (a superblock or a first
 * data block then costs no second round trip). Every fetch carries {@code If-Match} with the pinned
 * ETag.
 *
 * <p>Every answer is checked before a byte is used: it must be 206 with exactly the {@code
 * Content-Range} asked and exactly that many bytes. A 200 (a server that ignores ranges), another
 * range, a longer body are errors, never data; a shorter one is retried. What the bytes are is not
 * checked here: the verified reader does that.
 */
public final class HttpOrigin implements Origin {
  static final int MAX_REDIRECTS = 5;
  private static final Set<Integer> REDIRECTS = Set.of(301, 302, 303, 307, 308);

  /** What a presigned URL answers to a HEAD: its signature covers GET only. */
  private static final Set<Integer> HEAD_REFUSED = Set.of(403, 405, 501);

  private final URI url;
  private final URI pinned;
  private final String description;
  private final HttpTransport transport;
  private final RemoteOptions options;
  private final RemoteStats stats;
  private final RequestAuthorizer auth;
  private final Exchanges exchanges;
  private final ObjectIdentity identity;
  private final int probe;
  private final AtomicReference<ByteBuffer> opening;

  private HttpOrigin(
      URI url,
      URI pinned,
      String description,
      HttpTransport transport,
      RemoteOptions options,
      RemoteStats stats,
      RequestAuthorizer auth,
      Exchanges exchanges,
      ObjectIdentity identity,
      int probe,
      ByteBuffer opening) {
    this.url = url;
    this.pinned = pinned;
    this.description = description;
    this.transport = transport;
    this.options = options;
    this.stats = stats;
    this.auth = auth;
    this.exchanges = exchanges;
    this.identity = identity;
    this.probe = probe;
    this.opening = new AtomicReference<>(opening);
  }

  /**
   * Resolves {@code url} (redirects, size, ETag) and pins it.
   *
   * @param description the object in messages and in its {@link ObjectIdentity}: the URL without
   *     credentials or signed query parameters
   * @param auth asked for the headers of every request (SigV4 for S3; {@link
   *     RequestAuthorizer#NONE})
   * @throws OriginException one line, when the object cannot be reached or sized
   */
  public static HttpOrigin open(
      URI url,
      String description,
      HttpTransport transport,
      RemoteOptions options,
      RemoteStats stats,
      RequestAuthorizer auth)
      throws IOException {
    return open(url, description, transport, options, stats, auth, 0);
  }

  /**
   * As {@link #open(URI, String, HttpTransport, RemoteOptions, RemoteStats, RequestAuthorizer)};
   * with {@code probe > 0}, sized by {@code GET Range: bytes=0-(probe-1)} instead of HEAD (one
   * request for the size and the first bytes; a server that ignores ranges is refused at open).
   *
   * @param probe bytes asked at open, 0 for a HEAD
   */
  public static HttpOrigin open(
      URI url,
      String description,
      HttpTransport transport,
      RemoteOptions options,
      RemoteStats stats,
      RequestAuthorizer auth,
      int probe)
      throws IOException {
    Exchanges ex = new Exchanges(transport, options, stats, auth, description);
    try {
      URI uri = url;
      int asked = probe; // 0: HEAD
      for (int hop = 0; ; hop++) {
        SizeProbe first = asked > 0 ? new SizeProbe(asked) : null;
        Exchanges.Reply r =
            first != null
                ? ex.send("GET", uri, Map.of("range", first.range()), first.what(), first::target)
                : ex.send("HEAD", uri, Map.of(), "HEAD", null);
        int status = r.status();
        if (REDIRECTS.contains(status)) {
          String location = r.header("location");
          if (location == null) {
            throw new OriginException(
                description + ": HTTP " + status + " redirect without a Location", status);
          }
          if (hop == MAX_REDIRECTS) {
            throw new OriginException(
                description + ": more than " + MAX_REDIRECTS + " redirects", status);
          }
          uri = uri.resolve(location);
          continue;
        }
        if (first == null && HEAD_REFUSED.contains(status)) {
          asked = 1;
          hop--; // the same URL, asked another way
          continue;
        }
        long size = first != null ? first.size(description, r) : headSize(description, r);
        ObjectIdentity id =
            new ObjectIdentity(description, r.header("etag"), r.header("x-amz-version-id"), size);
        ByteBuffer bytes = first != null && probe > 0 && size > 0 ? first.bytes() : null;
        return new HttpOrigin(
            url, uri, description, transport, options, stats, auth, ex, id, probe, bytes);
      }
    } catch (IOException e) {
      stats.failures.increment();
      throw e;
    }
  }

  /**
   * {@code url} as messages and cache keys name it: without user info or query (a presigned URL's
   * signature and credential), so that neither lands in a log nor changes with every signing.
   */
  public static String describe(URI url) {
    StringBuilder b =
        new StringBuilder().append(url.getScheme()).append("://").append(url.getHost());
    if (url.getPort() >= 0) {
      b.append(':').append(url.getPort());
    }
    return b.append(url.getRawPath() == null ? "" : url.getRawPath()).toString();
  }

  private static long headSize(String description, Exchanges.Reply r) throws OriginException {
    if (r.status() != 200) {
      throw new OriginException(description + ": HEAD: " + r.describe(), r.status());
    }
    String length = r.header("content-length");
    try {
      long size = Long.parseLong(length);
      if (size >= 0) {
        return size;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new OriginException(
        description + ": HEAD: no size (Content-Length: " + length + ")", r.status());
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public ObjectIdentity identity() {
    return identity;
  }

  @Override
  public RemoteStats stats() {
    return stats;
  }

  /** The bytes from offset 0 that the open's probe fetched, the first time asked; then null. */
  @Override
  public ByteBuffer takeOpening() {
    return opening.getAndSet(null);
  }

  /** The URL every request goes to: the one opened, after its redirects. */
  public URI pinnedUri() {
    return pinned;
  }

  @Override
  public void fetch(long offset, ByteBuffer dst) throws IOException {
    int length = dst.remaining();
    if (length == 0) {
      return;
    }
    long first = offset;
    long last = offset + length - 1;
    String what = "bytes " + first + "-" + last;
    if (offset < 0 || last >= identity.size()) {
      throw new OriginException(
          description + ": " + what + ": past the end (size " + identity.size() + ")", 0);
    }
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("range", "bytes=" + first + "-" + last);
    if (identity.etag() != null) {
      headers.put("if-match", identity.etag());
    }
    try {
      Exchanges.Reply r =
          exchanges.send(
              "GET",
              pinned,
              headers,
              what,
              info -> {
                ContentRange cr =
                    ContentRange.parse(info.headers().firstValue("content-range").orElse(null));
                boolean exact =
                    info.statusCode() == 206 && cr != null && cr.is(first, last, identity.size());
                return exact ? dst.duplicate() : null;
              });
      check(what, r, first, last);
      dst.position(dst.limit());
    } catch (IOException e) {
      stats.failures.increment();
      throw e;
    }
  }

  /** Throws unless {@code r} was the exact range: then its body has been checked and written. */
  private void check(String what, Exchanges.Reply r, long first, long last) throws IOException {
    String prefix = description + ": " + what + ": ";
    int status = r.status();
    if (status == 206 && r.text() == null) {
      return;
    }
    if (status == 412) {
      throw new ObjectChangedException("remote", identity, currentEtag());
    }
    if (status == 200) {
      throw new OriginException(
          prefix + "answered 200 to a range request (the server ignores ranges)", 200);
    }
    if (status == 206) {
      throw new OriginException(
          prefix
              + "answered Content-Range "
              + r.header("content-range")
              + " (asked bytes "
              + first
              + "-"
              + last
              + "/"
              + identity.size()
              + ")",
          206);
    }
    throw new OriginException(prefix + r.describe(), status);
  }

  /** The object's ETag now, by one HEAD without retries; null when that does not say. */
  private String currentEtag() {
    try {
      Exchanges once =
          new Exchanges(
              transport,
              options.withTimeouts(options.timeout(), 0, options.timeout()),
              stats,
              auth,
              description);
      Exchanges.Reply r = once.send("HEAD", pinned, Map.of(), "HEAD", null);
      return r.status() == 200 ? r.header("etag") : null;
    } catch (IOException e) {
      return null;
    }
  }

  /** A fresh open of the URL this was opened with: redirects, size and ETag read again. */
  @Override
  public HttpOrigin reopen() throws IOException {
    return open(url, description, transport, options, stats, auth, probe);
  }

  /** Nothing to close: the transport is the source's, shared by all its origins. */
  @Override
  public void close() {}
}
