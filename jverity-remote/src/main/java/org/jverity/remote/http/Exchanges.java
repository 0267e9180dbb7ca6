package org.jverity.remote.http;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.UnresolvedAddressException;
import java.security.cert.CertificateException;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import javax.net.ssl.SSLException;
import org.jverity.remote.OriginException;
import org.jverity.remote.RemoteOptions;
import org.jverity.remote.RemoteStats;

/**
 * Requests to one origin with its retry rules: each attempt authorized afresh, bounded by the
 * request timeout, counted in {@link RemoteStats}; connect errors, resets, timeouts, 5xx, 429 and
 * cut bodies retried after a jittered exponential {@link Backoff}, at most {@code retries} more
 * times and within {@code retryBudget}; any other answer returned to the caller to judge. S3's
 * {@code ExpiredToken} re-reads the credentials and tries once more. What fails for good is one
 * line: {@code <origin>: <what>: <why>[ after N attempts]}.
 */
final class Exchanges {
  private final HttpTransport transport;
  private final RemoteOptions options;
  private final RemoteStats stats;
  private final RequestAuthorizer auth;
  private final String description;

  Exchanges(
      HttpTransport transport,
      RemoteOptions options,
      RemoteStats stats,
      RequestAuthorizer auth,
      String description) {
    this.transport = transport;
    this.options = options;
    this.stats = stats;
    this.auth = auth;
    this.description = description;
  }

  /**
   * An answer that was not retried.
   *
   * @param status the HTTP status
   * @param headers its headers
   * @param text the first 4 KiB of its body when it was not data, else null
   */
  record Reply(int status, HttpHeaders headers, String text) {
    /** S3's error code in the body, or null. */
    String code() {
      return ErrorBody.s3Code(text);
    }

    String header(String name) {
      return headers.firstValue(name).orElse(null);
    }

    /** {@code HTTP 404} or {@code HTTP 403 AccessDenied}. */
    String describe() {
      String code = code();
      return "HTTP " + status + (code == null ? "" : " " + code);
    }
  }

  /** Why one attempt failed; {@code transientFault} says whether it is worth another. */
  private static final class Failure extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;
    final boolean transientFault;
    final boolean expiredToken;

    Failure(String why, int status, boolean transientFault, boolean expiredToken) {
      super(why, null, false, false);
      this.status = status;
      this.transientFault = transientFault;
      this.expiredToken = expiredToken;
    }
  }

  /**
   * Sends {@code method uri} until an answer comes that is not a transient fault, and returns it.
   *
   * @param what the request in messages ({@code bytes 0-4095}, {@code HEAD})
   * @param headers lower-case names: {@code range}, {@code if-match}
   * @param target for an answer that is data (given its status and headers), a buffer to fill
   *     exactly, fresh for each attempt; null for any other answer (its body is read as text)
   */
  Reply send(
      String method,
      URI uri,
      Map<String, String> headers,
      String what,
      Function<HttpResponse.ResponseInfo, ByteBuffer> target)
      throws IOException {
    long budget = options.retryBudget().toNanos();
    long spent = 0;
    boolean refreshed = false;
    for (int attempt = 1; ; attempt++) {
      long began = System.nanoTime();
      Failure f;
      try (HttpTransport.Permit p = transport.permit(uri)) {
        began = System.nanoTime(); // the wait for a permit is not the origin's time
        return once(method, uri, headers, target);
      } catch (Failure e) {
        f = e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException(description + ": " + what + ": interrupted");
      }
      spent += System.nanoTime() - began;
      if (f.expiredToken && !refreshed && auth.refresh()) {
        refreshed = true;
        stats.retries.increment();
        attempt--; // fresh credentials: this is not a fault of the origin
        continue;
      }
      long wait = Backoff.nanos(attempt);
      if (!f.transientFault || attempt > options.retries() || spent + wait > budget) {
        throw new OriginException(
            description
                + ": "
                + what
                + ": "
                + f.getMessage()
                + (attempt > 1 ? " after " + attempt + " attempts" : ""),
            f.status);
      }
      stats.retries.increment();
      try {
        TimeUnit.NANOSECONDS.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException(description + ": " + what + ": interrupted");
      }
      spent += wait;
    }
  }

  /** One attempt: an answer to return, or a {@link Failure}. */
  private Reply once(
      String method,
      URI uri,
      Map<String, String> headers,
      Function<HttpResponse.ResponseInfo, ByteBuffer> target)
      throws Failure, IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .timeout(options.timeout())
            .method(method, HttpRequest.BodyPublishers.noBody());
    headers.forEach(b::header);
    auth.headers(method, uri, headers).forEach(b::header);
    Bodies bodies = new Bodies(target);
    stats.requests.increment();
    long t0 = System.nanoTime();
    CompletableFuture<HttpResponse<String>> future =
        transport.client(uri).sendAsync(b.build(), bodies);
    try {
      HttpResponse<String> r = future.get(options.timeout().toNanos(), TimeUnit.NANOSECONDS);
      int status = r.statusCode();
      if (status >= 500 || status == 429) {
        Reply reply = new Reply(status, r.headers(), r.body());
        // 501 and 505 say the server will never do this; asking again cannot help
        boolean worthAgain = status != 501 && status != 505;
        throw new Failure(reply.describe(), status, worthAgain, false);
      }
      if (status == 400 || status == 403) {
        Reply reply = new Reply(status, r.headers(), r.body());
        if ("ExpiredToken".equals(reply.code())) {
          throw new Failure(reply.describe(), status, false, true);
        }
      }
      return new Reply(status, r.headers(), bodies.isData() ? null : r.body());
    } catch (TimeoutException e) {
      throw new Failure("timed out after " + seconds(), 0, true, false);
    } catch (ExecutionException e) {
      String cut = bodies.cutShort();
      if (cut != null && !(e.getCause() instanceof RangeBody.LengthMismatch)) {
        // the head came, the body broke: the client may report its own error, not the body's
        throw new Failure(cut, 206, true, false);
      }
      throw failure(e.getCause(), uri);
    } finally {
      stats.bytes.add(bodies.finish());
      future.cancel(true);
      stats.recordLatency(System.nanoTime() - t0);
    }
  }

  /**
   * The body handler of one attempt: an answer that is data goes into its target buffer, any other
   * is read as text. {@link #finish} stops any write into the caller's buffer, for good.
   */
  private static final class Bodies implements HttpResponse.BodyHandler<String> {
    private final Function<HttpResponse.ResponseInfo, ByteBuffer> target;
    private RangeBody data;
    private ErrorBody text;

    Bodies(Function<HttpResponse.ResponseInfo, ByteBuffer> target) {
      this.target = target;
    }

    @Override
    public synchronized BodySubscriber<String> apply(HttpResponse.ResponseInfo info) {
      ByteBuffer dst = target == null ? null : target.apply(info);
      if (dst != null) {
        return data = new RangeBody(dst);
      }
      return text = new ErrorBody();
    }

    /** When a data body had begun and did not complete, what it got; else null. */
    synchronized String cutShort() {
      return data == null ? null : data.cutShort();
    }

    synchronized boolean isData() {
      return data != null;
    }

    /** Abandons the data body (a late packet must not land); returns the body bytes received. */
    synchronized long finish() {
      if (data != null) {
        data.abandon();
        return data.received();
      }
      return text == null ? 0 : text.size();
    }
  }

  private String seconds() {
    return options.timeout().toMillis() / 1000.0 + " s";
  }

  /** What an exception of the client sending to {@code uri} says, as a one-line failure. */
  private Failure failure(Throwable t, URI uri) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    if (unresolved(t)) {
      // Not retried: the JDK keeps a failed lookup for 10 s (networkaddress.cache.negative.ttl),
      // so a retry within the backoff's seconds gets the same answer without asking again, and the
      // system's resolver has already retried (resolv.conf's attempts) before it said so. Five
      // retries only delayed the line and called it a refused connection (HttpClient's
      // ConnectException).
      return new Failure(
          uri.getHost() + ": host not found (the name does not resolve)", 0, false, false);
    }
    if (t instanceof RangeBody.LengthMismatch m) {
      return new Failure(m.getMessage(), 206, !m.longer, false);
    }
    if (t instanceof HttpConnectTimeoutException) {
      return new Failure("connect timed out after " + seconds(), 0, true, false);
    }
    if (t instanceof HttpTimeoutException) {
      return new Failure("timed out after " + seconds(), 0, true, false);
    }
    if (t instanceof ConnectException) {
      return new Failure("cannot connect (connection refused)", 0, true, false);
    }
    if (t instanceof SSLException) {
      boolean certificate = false;
      for (Throwable c = t; c != null; c = c.getCause()) {
        certificate |= c instanceof CertificateException;
      }
      return new Failure("TLS: " + oneLine(rootMessage(t)), 0, !certificate, false);
    }
    if (t instanceof CancellationException) {
      return new Failure("request cancelled", 0, true, false);
    }
    String m = rootMessage(t);
    if (m.contains("reset")) {
      return new Failure("connection reset", 0, true, false);
    }
    if (m.contains("received no bytes") || m.contains("EOF") || m.contains("closed")) {
      return new Failure("connection closed without an answer", 0, true, false);
    }
    return new Failure(oneLine(m), 0, true, false);
  }

  /** Whether {@code t} says the origin's host name did not resolve (HttpClient wraps it). */
  private static boolean unresolved(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof UnresolvedAddressException || c instanceof UnknownHostException) {
        return true;
      }
    }
    return false;
  }

  private static String rootMessage(Throwable t) {
    String m = null;
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c.getMessage() != null) {
        m = c.getMessage();
      }
    }
    return m == null ? t.getClass().getSimpleName() : m;
  }

  private static String oneLine(String s) {
    return s.replaceAll("\\s+", " ").trim();
  }
}
