package org.jverity.remote.http;

import java.security.KeyManagementException;
import java.security.SecureRandom;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * The TLS context of the {@code http://} client: one that refuses to make a connection. The JDK's
 * client wants a context even when it speaks plain HTTP, and its default one loads the system trust
 * store (a second of a short command's start-up); this one costs nothing, and a TLS connection
 * through it fails instead of trusting anything. {@link HttpTransport} never sends an {@code
 * https://} request through that client.
 */
final class NoTls extends SSLContextSpi {
  private NoTls() {}

  static SSLContext context() {
    return new SSLContext(new NoTls(), null, "none") {};
  }

  private static UnsupportedOperationException refused() {
    return new UnsupportedOperationException("TLS through the plain http:// client");
  }

  @Override
  protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom sr)
      throws KeyManagementException {
    throw new KeyManagementException("this context is never set up");
  }

  @Override
  protected SSLSocketFactory engineGetSocketFactory() {
    throw refused();
  }

  @Override
  protected SSLServerSocketFactory engineGetServerSocketFactory() {
    throw refused();
  }

  @Override
  protected SSLEngine engineCreateSSLEngine() {
    throw refused();
  }

  @Override
  protected SSLEngine engineCreateSSLEngine(String host, int port) {
    throw refused();
  }

  @Override
  protected SSLSessionContext engineGetServerSessionContext() {
    throw refused();
  }

  @Override
  protected SSLSessionContext engineGetClientSessionContext() {
    throw refused();
  }

  @Override
  protected SSLParameters engineGetDefaultSSLParameters() {
    return new SSLParameters();
  }

  @Override
  protected SSLParameters engineGetSupportedSSLParameters() {
    return new SSLParameters();
  }
}
