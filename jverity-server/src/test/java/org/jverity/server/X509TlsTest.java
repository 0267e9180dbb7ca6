package org.jverity.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.jverity.nbd.NbdTls;
import org.jverity.testkit.Tool;

/**
 * Loading nbdkit-layout directories whose keys openssl wrote in each PEM form, the errors that name
 * the file, the TLS versions offered, and a handshake with the JDK's client.
 */
class X509TlsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir static Path dir;

  /** One directory per key form: a self-signed certificate is its own CA. */
  @BeforeAll
  static void keys() throws Exception {
    Tool.of("openssl").require();
    Tool.of("bash")
        .in(dir)
        .timeout(TIMEOUT)
        .check(
            "-e",
            "-c",
            """
        mkdir pkcs8 pkcs1 ec mismatch
        openssl req -x509 -newkey rsa:2048 -nodes -keyout pkcs8/server-key.pem -out pkcs8/server-cert.pem \
          -subj /CN=localhost -days 2 2>/dev/null
        openssl genrsa -traditional -out pkcs1/server-key.pem 2048 2>/dev/null
        openssl req -x509 -key pkcs1/server-key.pem -out pkcs1/server-cert.pem -subj /CN=localhost -days 2
        openssl ecparam -name prime256v1 -genkey -out ec/server-key.pem
        openssl req -x509 -key ec/server-key.pem -out ec/server-cert.pem -subj /CN=localhost -days 2
        cp pkcs8/server-cert.pem mismatch/server-cert.pem
        cp pkcs1/server-key.pem mismatch/server-key.pem
        for d in pkcs8 pkcs1 ec mismatch; do cp $d/server-cert.pem $d/ca-cert.pem; done
        """);
  }

  @ParameterizedTest
  @ValueSource(strings = {"pkcs8", "pkcs1", "ec"})
  void loadsEveryPemKeyForm(String form) throws Exception {
    String header = Files.readString(dir.resolve(form).resolve(X509Tls.SERVER_KEY));
    assertThat(header)
        .contains(
            switch (form) {
              case "pkcs8" -> "BEGIN PRIVATE KEY";
              case "pkcs1" -> "BEGIN RSA PRIVATE KEY";
              default -> "BEGIN EC PRIVATE KEY";
            });
    X509Tls tls = X509Tls.fromDirectory(dir.resolve(form), NbdTls.Mode.REQUIRE, true);
    assertThat(tls.mode()).isEqualTo(NbdTls.Mode.REQUIRE);
    assertThat(tls.certificate().getSubjectX500Principal().getName()).isEqualTo("CN=localhost");
  }

  @Test
  void offersTls13UnlessClientCertificatesChainToAnRsaPkcs1Ca() throws Exception {
    assertThat(X509Tls.fromDirectory(dir.resolve("pkcs8"), NbdTls.Mode.ON, false).protocols())
        .containsExactly("TLSv1.3", "TLSv1.2");
    assertThat(X509Tls.fromDirectory(dir.resolve("pkcs8"), NbdTls.Mode.ON, true).protocols())
        .containsExactly("TLSv1.2");
    assertThat(X509Tls.fromDirectory(dir.resolve("ec"), NbdTls.Mode.ON, true).protocols())
        .containsExactly("TLSv1.3", "TLSv1.2");
  }

  @Test
  void aMissingFileIsNamed() throws Exception {
    Path empty = Files.createDirectories(dir.resolve("empty"));
    assertThatThrownBy(() -> X509Tls.fromDirectory(empty, NbdTls.Mode.ON, false))
        .isInstanceOf(IOException.class)
        .hasMessage(empty.resolve("server-cert.pem") + ": no such file");
    Path noCa = Files.createDirectories(dir.resolve("no-ca"));
    Files.copy(dir.resolve("ec/server-cert.pem"), noCa.resolve("server-cert.pem"));
    Files.copy(dir.resolve("ec/server-key.pem"), noCa.resolve("server-key.pem"));
    X509Tls.fromDirectory(noCa, NbdTls.Mode.ON, false); // the CA is only needed to verify peers
    assertThatThrownBy(() -> X509Tls.fromDirectory(noCa, NbdTls.Mode.ON, true))
        .isInstanceOf(IOException.class)
        .hasMessage(noCa.resolve("ca-cert.pem") + ": no such file");
  }

  @Test
  void badPemIsNamed() throws Exception {
    Path bad = Files.createDirectories(dir.resolve("bad"));
    Files.copy(dir.resolve("ec/server-cert.pem"), bad.resolve("server-cert.pem"));
    Files.writeString(
        bad.resolve("server-key.pem"),
        "-----BEGIN PRIVATE KEY-----\n@@@@\n-----END PRIVATE KEY-----\n");
    assertThatThrownBy(() -> X509Tls.fromDirectory(bad, NbdTls.Mode.ON, false))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(bad.resolve("server-key.pem") + ": ");
    Files.writeString(bad.resolve("server-key.pem"), "no key here\n");
    assertThatThrownBy(() -> X509Tls.fromDirectory(bad, NbdTls.Mode.ON, false))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(
            bad.resolve("server-key.pem")
                + ": not a PEM private key: text without a '-----BEGIN' line (expected: PEM");
    Files.writeString(bad.resolve("server-cert.pem"), "not a certificate\n");
    assertThatThrownBy(() -> X509Tls.fromDirectory(bad, NbdTls.Mode.ON, false))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(bad.resolve("server-cert.pem") + ": ");
  }

  @Test
  void aKeyThatDoesNotMatchTheCertificateIsRefused() {
    Path d = dir.resolve("mismatch");
    assertThatThrownBy(() -> X509Tls.fromDirectory(d, NbdTls.Mode.ON, false))
        .isInstanceOf(IOException.class)
        .hasMessage(
            d.resolve("server-key.pem")
                + ": the key does not match the certificate in "
                + d.resolve("server-cert.pem"));
  }

  @Test
  void wrapCompletesAServerHandshakeWithAnEcKey() throws Exception {
    X509Tls tls = X509Tls.fromDirectory(dir.resolve("ec"), NbdTls.Mode.ON, false);
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry("server", tls.certificate());
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trusted);
    SSLContext client = SSLContext.getInstance("TLS");
    client.init(null, tmf.getTrustManagers(), null);
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture<String> served =
          CompletableFuture.supplyAsync(
              () -> {
                try (Socket s = tls.wrap(server.accept())) {
                  s.getOutputStream().write(42);
                  s.getOutputStream().flush();
                  return ((SSLSocket) s).getSession().getProtocol();
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      try (SSLSocket c =
          (SSLSocket)
              client
                  .getSocketFactory()
                  .createSocket(server.getInetAddress(), server.getLocalPort())) {
        c.setEnabledProtocols(new String[] {"TLSv1.3"});
        assertThat(c.getInputStream().read()).isEqualTo(42);
      }
      assertThat(served.get()).isEqualTo("TLSv1.3");
    }
    assertThat(tls.toString()).contains("CN=localhost");
  }
}
