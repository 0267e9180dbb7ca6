package org.jverity.remote.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import org.jverity.remote.RemoteOptions;

/**
 * The HTTP clients every origin of one {@code RemoteSource} shares: a JDK {@link HttpClient} per
 * scheme, each made when a URL of its scheme is first asked (keep-alive, HTTP/2 where the server
 * offers it by ALPN, redirects never followed: {@link HttpOrigin} resolves them once at open), and
 * a bound on the requests in flight per origin host.
 *
 * <p>TLS trusts the system's CA certificates, or, with {@link RemoteOptions#caCert()}, only the
 * certificates of that PEM file. There is no mode that trusts anything. Loading a trust store costs
 * a process about a second of class loading and parsing, so the {@code http://} client never has
 * one: it is given a context that refuses any handshake ({@link NoTls}), and the TLS context is
 * made with the first {@code https://} URL.
 */
public final class HttpTransport implements AutoCloseable {
  private final RemoteOptions options;
  private final int parallel;
  private final ConcurrentMap<String, Semaphore> hosts = new ConcurrentHashMap<>();
  private HttpClient plain; // guarded by this
  private HttpClient tls; // guarded by this
  private boolean closed; // guarded by this

  public HttpTransport(RemoteOptions options) throws IOException {
    if (options.parallel() < 1) {
      throw new IllegalArgumentException(
          "parallel (" + options.parallel() + ") must be at least 1");
    }
    this.options = options;
    this.parallel = options.parallel();
  }

  /** The client for {@code uri}'s scheme, made on first use. */
  synchronized HttpClient client(URI uri) throws IOException {
    if (closed) {
      throw new IOException("HTTP transport closed");
    }
    if ("https".equalsIgnoreCase(uri.getScheme())) {
      if (tls == null) {
        HttpClient.Builder b = builder();
        if (options.caCert() != null) {
          b.sslContext(trusting(options.caCert()));
        }
        tls = b.build();
      }
      return tls;
    }
    if (plain == null) {
      // Given a context and its parameters, the client asks the JDK for no default context.
      plain = builder().sslContext(NoTls.context()).sslParameters(new SSLParameters()).build();
    }
    return plain;
  }

  private HttpClient.Builder builder() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_2)
        .followRedirects(HttpClient.Redirect.NEVER)
        .connectTimeout(options.timeout());
  }

  /**
   * A permit to send one request to {@code uri}'s host; waits while {@code parallel} are in flight
   * there. The wait counts against no timeout: it is this client's own queue, not the origin's.
   */
  Permit permit(URI uri) throws InterruptedException {
    Semaphore s = hosts.computeIfAbsent(hostPort(uri), k -> new Semaphore(parallel, true));
    s.acquire();
    return s::release;
  }

  /** A request slot of one host; closing it lets the next request go. */
  interface Permit extends AutoCloseable {
    @Override
    void close();
  }

  private static String hostPort(URI uri) {
    int port = uri.getPort();
    if (port < 0) {
      port = "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }
    return uri.getHost() + ":" + port;
  }

  /** A TLS context trusting only the CA certificates in {@code pem}. */
  private static SSLContext trusting(Path pem) throws IOException {
    try (InputStream in = Files.newInputStream(pem)) {
      Collection<? extends Certificate> certs =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certs.isEmpty()) {
        throw new IOException("--ca-cert " + pem + ": no certificate in it");
      }
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (Certificate c : certs) {
        store.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IOException("--ca-cert " + pem + ": not PEM certificates (" + e.getMessage() + ")");
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    for (HttpClient c : new HttpClient[] {plain, tls}) {
      if (c != null) {
        c.shutdownNow();
        c.close();
      }
    }
    plain = null;
    tls = null;
  }
}
