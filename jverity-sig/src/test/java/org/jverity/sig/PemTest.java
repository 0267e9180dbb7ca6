package org.jverity.sig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testkit.Openssl;

/** {@link Pem}: the key encodings openssl writes, several certificates per file, clear refusals. */
class PemTest {
  @TempDir Path dir;

  @Test
  void readsPkcs8Pkcs1AndSec1Keys() throws Exception {
    Openssl.rsa(dir, "a", 2048);
    Openssl.in(dir).check("rsa", "-in", "a.key", "-traditional", "-out", "a-pkcs1.key");
    assertThat(Files.readString(dir.resolve("a-pkcs1.key")))
        .startsWith("-----BEGIN RSA PRIVATE KEY-----");
    Openssl.ec(dir, "e");
    assertThat(Files.readString(dir.resolve("e.key"))).contains("BEGIN EC PRIVATE KEY");
    Openssl.in(dir).check("pkcs8", "-topk8", "-nocrypt", "-in", "e.key", "-out", "e-pkcs8.key");
    assertThat(Pem.readPrivateKey(dir.resolve("a.key")).getAlgorithm()).isEqualTo("RSA");
    assertThat(Pem.readPrivateKey(dir.resolve("a-pkcs1.key")))
        .isEqualTo(Pem.readPrivateKey(dir.resolve("a.key")));
    assertThat(Pem.readPrivateKey(dir.resolve("e.key")).getAlgorithm()).isEqualTo("EC");
    assertThat(Pem.readPrivateKey(dir.resolve("e-pkcs8.key")).getAlgorithm()).isEqualTo("EC");
  }

  @Test
  void readsEveryCertificateOfAFile() throws Exception {
    Openssl.rsa(dir, "a", 2048);
    Openssl.ec(dir, "e");
    Files.writeString(
        dir.resolve("both.pem"),
        Files.readString(dir.resolve("a.crt")) + Files.readString(dir.resolve("e.crt")));
    assertThat(Pem.readCertificates(dir.resolve("both.pem")))
        .extracting(c -> c.getSubjectX500Principal().getName())
        .containsExactly("CN=a", "CN=e");
  }

  @Test
  void refusesWhatIsNotAKeyOrACertificate() throws Exception {
    Openssl.rsa(dir, "a", 2048);
    Openssl.in(dir)
        .check("pkcs8", "-topk8", "-in", "a.key", "-passout", "pass:x", "-out", "enc.key");
    assertThatThrownBy(() -> Pem.readPrivateKey(dir.resolve("enc.key")))
        .isInstanceOf(IOException.class)
        .hasMessageEndingWith(
            "enc.key: the private key is encrypted (expected: an unencrypted key)");
    assertThatThrownBy(() -> Pem.readPrivateKey(dir.resolve("a.crt")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("a.crt: not a PEM private key: a PEM CERTIFICATE (expected: PEM");
    Openssl.in(dir).check("pkey", "-in", "a.key", "-outform", "DER", "-out", "a.der");
    assertThatThrownBy(() -> Pem.readPrivateKey(dir.resolve("a.der")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("a.der: not a PEM private key: DER (binary ASN.1) (expected: PEM")
        .hasMessageEndingWith(
            "; openssl pkey -inform DER -in " + dir.resolve("a.der") + " converts it)");
    assertThatThrownBy(() -> Pem.readPublicKey(dir.resolve("a.der")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("a.der: not a PEM public key: DER (binary ASN.1)")
        .hasMessageEndingWith(
            "; openssl pkey -pubin -inform DER -in " + dir.resolve("a.der") + " converts it)");
    assertThatThrownBy(() -> Pem.readCertificates(dir.resolve("a.key")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("a.key: ");
  }
}
