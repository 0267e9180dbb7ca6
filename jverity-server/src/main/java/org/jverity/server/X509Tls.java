package org.jverity.server;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.jverity.nbd.NbdTls;
import org.jverity.sig.Pem;

/**
 * TLS with x509 certificates from a directory laid out as nbdkit's {@code --tls-certificates}
 * (nbdkit-tls(1)): {@value #SERVER_CERT} (the server's certificate, optionally followed by its
 * chain), {@value #SERVER_KEY} (its unencrypted private key: PKCS#8, PKCS#1 RSA or SEC1 EC, as
 * certtool and openssl write them) and, when client certificates are verified, {@value #CA_CERT}
 * (the certificates client certificates must chain to). TLS 1.3 and 1.2 only, through the JDK's
 * provider.
 *
 * <p>TLS 1.2 only with {@code verifyPeer} and an RSA CA signing with PKCS#1 v1.5 (certtool's and
 * openssl's default): in TLS 1.3 the JDK's CertificateRequest lists the algorithms allowed for
 * certificates apart (signature_algorithms_cert, with rsa_pkcs1_*), but GnuTLS, which libnbd, qemu
 * and nbd-client use, chooses its client certificate from signature_algorithms, where TLS 1.3 has
 * no rsa_pkcs1_*, and sends none. With an EC (or RSA-PSS) CA, TLS 1.3 is offered as well.
 *
 * <p>Immutable and thread-safe: one {@link SSLContext} is built at load time and shared by every
 * connection.
 */
public final class X509Tls implements NbdTls {
  public static final String CA_CERT = "ca-cert.pem";
  public static final String SERVER_CERT = "server-cert.pem";
  public static final String SERVER_KEY = "server-key.pem";

  private static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");
  private static final List<String> TLS12 = List.of("TLSv1.2");

  private final Mode mode;
  private final boolean verifyPeer;
  private final SSLContext context;
  private final X509Certificate certificate;
  private final List<String> protocols;

  private X509Tls(
      Mode mode,
      boolean verifyPeer,
      SSLContext context,
      X509Certificate certificate,
      List<String> protocols) {
    this.mode = mode;
    this.verifyPeer = verifyPeer;
    this.context = context;
    this.certificate = certificate;
    this.protocols = protocols;
  }

  /**
   * Loads the server's key and certificate chain from {@code dir}, and with {@code verifyPeer} the
   * CA that client certificates must chain to ({@code --tls-verify-peer}: a client without a valid
   * certificate fails the TLS handshake).
   *
   * @throws IOException naming the file, when one is missing or unreadable, is not PEM, holds no
   *     certificate or key, holds an encrypted key, or when the key does not match the certificate
   */
  public static X509Tls fromDirectory(Path dir, Mode mode, boolean verifyPeer) throws IOException {
    Objects.requireNonNull(mode, "mode");
    Path certFile = dir.resolve(SERVER_CERT);
    Path keyFile = dir.resolve(SERVER_KEY);
    List<X509Certificate> chain = readCertificates(certFile);
    PrivateKey key = readPrivateKey(keyFile);
    checkKeyMatches(key, chain.getFirst().getPublicKey(), keyFile, certFile);
    try {
      char[] password = new char[0]; // the in-memory store needs one; nothing is written
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry("server", key, password, chain.toArray(new Certificate[0]));
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, password);

      TrustManagerFactory tmf = null;
      List<String> protocols = PROTOCOLS;
      if (verifyPeer) {
        Path caFile = dir.resolve(CA_CERT);
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        int i = 0;
        for (X509Certificate ca : readCertificates(caFile)) {
          trusted.setCertificateEntry("ca" + i++, ca);
          if (signsWithRsaPkcs1(ca)) {
            protocols = TLS12;
          }
        }
        tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
      return new X509Tls(mode, verifyPeer, context, chain.getFirst(), protocols);
    } catch (GeneralSecurityException e) {
      throw new IOException(dir + ": cannot set up TLS: " + e.getMessage(), e);
    }
  }

  @Override
  public Mode mode() {
    return mode;
  }

  /** Whether clients must present a certificate signed by {@value #CA_CERT}. */
  public boolean verifyPeer() {
    return verifyPeer;
  }

  /** The server's certificate (the first of {@value #SERVER_CERT}). */
  public X509Certificate certificate() {
    return certificate;
  }

  /**
   * The TLS versions offered: 1.3 and 1.2, or only 1.2 when client certificates are verified
   * against a CA that signs with RSA PKCS#1 v1.5 (see the class comment).
   */
  public List<String> protocols() {
    return protocols;
  }

  @Override
  public Socket wrap(Socket plain) throws IOException {
    // the server-mode variant: the client speaks first (ClientHello after our STARTTLS ACK)
    SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(plain, null, true);
    tls.setUseClientMode(false);
    tls.setEnabledProtocols(protocols.toArray(new String[0]));
    tls.setNeedClientAuth(verifyPeer);
    tls.startHandshake();
    return tls;
  }

  @Override
  public String toString() {
    return "X509Tls["
        + mode
        + (verifyPeer ? ", verify-peer" : "")
        + ", "
        + protocols
        + ", "
        + certificate.getSubjectX500Principal().getName()
        + "]";
  }

  /** Whether {@code ca} (self-signed: as it signs others) signs with RSA PKCS#1 v1.5. */
  private static boolean signsWithRsaPkcs1(X509Certificate ca) {
    return ca.getSigAlgName().toUpperCase(Locale.ROOT).endsWith("WITHRSA");
  }

  /**
   * Every certificate of a PEM file, in order; at least one ({@link Pem}, a missing file named).
   */
  private static List<X509Certificate> readCertificates(Path file) throws IOException {
    try {
      return Pem.readCertificates(file);
    } catch (NoSuchFileException e) {
      throw noSuchFile(file, e);
    }
  }

  /**
   * The first private key of a PEM file: PKCS#8, PKCS#1 RSA or SEC1 EC ({@link Pem}, a missing file
   * named).
   */
  private static PrivateKey readPrivateKey(Path file) throws IOException {
    try {
      return Pem.readPrivateKey(file);
    } catch (NoSuchFileException e) {
      throw noSuchFile(file, e);
    }
  }

  /** nbdkit's directory is found by convention: say which of its files is missing, in words. */
  private static IOException noSuchFile(Path file, NoSuchFileException e) {
    return new IOException(file + ": no such file", e);
  }

  /** Signs a challenge with the key and verifies it with the certificate's public key. */
  private static void checkKeyMatches(PrivateKey key, PublicKey pub, Path keyFile, Path certFile)
      throws IOException {
    if (!key.getAlgorithm().equals(pub.getAlgorithm())) {
      throw new IOException(
          keyFile
              + ": a "
              + key.getAlgorithm()
              + " key, but "
              + certFile
              + " holds a "
              + pub.getAlgorithm()
              + " key (expected: the certificate's key)");
    }
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          case "Ed25519", "Ed448", "EdDSA" -> key.getAlgorithm();
          default -> null; // others (RSASSA-PSS, ...) are left to the TLS handshake
        };
    if (algorithm == null) {
      return;
    }
    try {
      byte[] challenge = "jverity key check".getBytes(StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance(algorithm);
      s.initSign(key);
      s.update(challenge);
      byte[] signature = s.sign();
      s.initVerify(pub);
      s.update(challenge);
      if (!s.verify(signature)) {
        throw new IOException(keyFile + ": the key does not match the certificate in " + certFile);
      }
    } catch (GeneralSecurityException e) {
      throw new IOException(
          keyFile
              + ": the key does not match the certificate in "
              + certFile
              + ": "
              + e.getMessage(),
          e);
    }
  }
}
