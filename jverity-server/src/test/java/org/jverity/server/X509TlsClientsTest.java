package org.jverity.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.nbd.NbdEvents;
import org.jverity.nbd.NbdTls;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.testkit.Tool;
import org.jverity.testkit.ToolResult;
import org.jverity.verify.ReaderOptions;

/**
 * TLS against libnbd's clients (nbdinfo, nbdcopy, nbdsh), with a certtool PKI in nbdkit's layout:
 * one server requiring TLS, one offering it and verifying client certificates, one without TLS.
 */
class X509TlsClientsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir static Path dir;

  static Pki pki;
  static ServedImage required; // Mode.REQUIRE, no client certificates asked
  static ServedImage verifying; // Mode.ON with verify-peer
  static ServedImage plain; // no TLS

  @BeforeAll
  static void serve() throws Exception {
    Tool.of("nbdinfo").require();
    Tool.of("nbdcopy").require();
    Tool.of("nbdsh").require();
    pki = Pki.make(dir);
    required =
        ServedImage.random(
            Files.createDirectories(dir.resolve("required")),
            256,
            ReaderOptions.DEFAULTS,
            X509Tls.fromDirectory(pki.server(), NbdTls.Mode.REQUIRE, false),
            NbdEvents.NONE);
    verifying =
        ServedImage.random(
            Files.createDirectories(dir.resolve("verifying")),
            64,
            ReaderOptions.DEFAULTS,
            X509Tls.fromDirectory(pki.server(), NbdTls.Mode.ON, true),
            NbdEvents.NONE);
    plain =
        ServedImage.random(
            Files.createDirectories(dir.resolve("plain")), 64, ReaderOptions.DEFAULTS);
  }

  @AfterAll
  static void stop() throws Exception {
    for (ServedImage s : new ServedImage[] {required, verifying, plain}) {
      if (s != null) {
        s.close();
      }
    }
  }

  @Test
  void nbdinfoConnectsOverTlsToAServerThatRequiresIt() throws Exception {
    ToolResult r =
        Tool.of("nbdinfo").in(dir).timeout(TIMEOUT).check("--json", required.tlsUri(pki.client()));
    assertThat(r.out()).contains("\"TLS\": true").contains("\"export-size\": " + 256 * 4096);
  }

  @Test
  void nbdcopyOverTlsReadsTheImage() throws Exception {
    ToolResult r =
        Tool.of("nbdcopy").in(dir).timeout(TIMEOUT).check(required.tlsUri(pki.client()), "-");
    assertThat(sha256(r.stdout())).isEqualTo(sha256(Files.readAllBytes(required.data)));
  }

  @Test
  void aPlainClientIsRefusedByAServerThatRequiresTls() throws Exception {
    ToolResult r = Tool.of("nbdinfo").in(dir).timeout(TIMEOUT).run(required.tcpUri());
    assertThat(r.exit()).as("%s", r).isNotZero();
  }

  @Test
  void tlsIsOptionalWhenOn() throws Exception {
    Tool.of("nbdinfo").in(dir).timeout(TIMEOUT).check("--size", verifying.tcpUri());
    ToolResult r =
        Tool.of("nbdinfo").in(dir).timeout(TIMEOUT).run("--is", "tls", verifying.tcpUri());
    assertThat(r.exit()).as("plain: %s", r).isEqualTo(2); // 2: false
  }

  @Test
  void verifyPeerAcceptsAClientCertificateSignedByTheCa() throws Exception {
    ToolResult r =
        Tool.of("nbdinfo")
            .in(dir)
            .timeout(TIMEOUT)
            .run("--is", "tls", verifying.tlsUri(pki.client()));
    assertThat(r.exit()).as("%s", r).isZero();
    ToolResult copy =
        Tool.of("nbdcopy").in(dir).timeout(TIMEOUT).check(verifying.tlsUri(pki.client()), "-");
    assertThat(sha256(copy.stdout())).isEqualTo(sha256(Files.readAllBytes(verifying.data)));
  }

  @Test
  void verifyPeerRefusesAClientWithoutACertificate() throws Exception {
    ToolResult r =
        Tool.of("nbdinfo").in(dir).timeout(TIMEOUT).run(verifying.tlsUri(pki.clientWithoutCert()));
    assertThat(r.exit()).as("%s", r).isNotZero();
    // the server goes on
    Tool.of("nbdinfo").in(dir).timeout(TIMEOUT).check("--size", verifying.tlsUri(pki.client()));
  }

  @Test
  void verifyPeerWithAnEcCaOffersTls13AndAcceptsTheClientCertificate() throws Exception {
    Pki ec = Pki.make(Files.createDirectories(dir.resolve("ec")), "ecdsa");
    X509Tls tls = X509Tls.fromDirectory(ec.server(), NbdTls.Mode.REQUIRE, true);
    assertThat(tls.protocols()).containsExactly("TLSv1.3", "TLSv1.2");
    try (ServedImage s =
        ServedImage.random(
            Files.createDirectories(dir.resolve("ec-served")),
            16,
            ReaderOptions.DEFAULTS,
            tls,
            NbdEvents.NONE)) {
      Tool.of("nbdinfo").in(dir).timeout(TIMEOUT).check("--size", s.tlsUri(ec.client()));
      assertThat(
              Tool.of("nbdinfo")
                  .in(dir)
                  .timeout(TIMEOUT)
                  .run("--size", s.tlsUri(ec.clientWithoutCert()))
                  .exit())
          .isNotZero();
    }
  }

  @Test
  void withoutVerifyPeerAClientNeedsNoCertificate() throws Exception {
    Tool.of("nbdinfo")
        .in(dir)
        .timeout(TIMEOUT)
        .check("--size", required.tlsUri(pki.clientWithoutCert()));
  }

  @Test
  void nbdshRequiringTlsFailsAgainstAServerWithoutIt() throws Exception {
    ToolResult r =
        Tool.of("nbdsh")
            .in(dir)
            .timeout(TIMEOUT)
            .run(
                "-c",
                "h.set_tls(nbd.TLS_REQUIRE)",
                "-c",
                "h.set_tls_certificates('" + pki.client() + "')",
                "-c",
                "h.connect_uri('" + plain.tcpUri() + "')");
    assertThat(r.exit()).as("%s", r).isNotZero();
    assertThat(r.stderr()).containsIgnoringCase("tls");
  }

  static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
