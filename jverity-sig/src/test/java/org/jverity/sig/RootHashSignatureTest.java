package org.jverity.sig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.sig.InvalidSignatureException.Reason;
import org.jverity.testkit.Openssl;

/** {@link RootHashSignature} against the documented {@code openssl smime} recipe. */
class RootHashSignatureTest {
  static final String ROOT = "e522df0f97da4febb882ac40f30b37dc0b444bf6df418929463fa25280f09d5c";
  @TempDir static Path dir;
  static PrivateKey key;
  static X509Certificate cert;
  static X509Certificate other;

  @BeforeAll
  static void keys() throws Exception {
    Openssl.rsa(dir, "signer", 2048);
    Openssl.rsa(dir, "other", 2048);
    key = Pem.readPrivateKey(dir.resolve("signer.key"));
    cert = Pem.readCertificates(dir.resolve("signer.crt")).getFirst();
    other = Pem.readCertificates(dir.resolve("other.crt")).getFirst();
    Files.writeString(dir.resolve("roothash.txt"), ROOT, StandardCharsets.US_ASCII);
  }

  static byte[] opensslSmime() throws Exception {
    Openssl.in(dir)
        .check(
            "smime",
            "-sign",
            "-nocerts",
            "-noattr",
            "-binary",
            "-in",
            "roothash.txt",
            "-inkey",
            "signer.key",
            "-signer",
            "signer.crt",
            "-outform",
            "der",
            "-out",
            "roothash.p7s");
    return Files.readAllBytes(dir.resolve("roothash.p7s"));
  }

  @Test
  void signIsTheDocumentedOpensslRecipeByteForByte() throws Exception {
    assertThat(RootHashSignature.sign(ROOT, key, cert)).isEqualTo(opensslSmime());
    assertThat(RootHashSignature.sign(ROOT.toUpperCase(), key, cert))
        .isEqualTo(opensslSmime()); // signed lower-case
  }

  @Test
  void opensslSignaturesVerifyAndOthersAreRefused() throws Exception {
    byte[] sig = opensslSmime();
    assertThat(RootHashSignature.verify(sig, ROOT, List.of(cert))).isEqualTo(cert);
    String otherRoot = "0" + ROOT.substring(1);
    assertThatThrownBy(() -> RootHashSignature.verify(sig, otherRoot, List.of(cert)))
        .isInstanceOfSatisfying(
            InvalidSignatureException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.BAD_SIGNATURE));
    assertThatThrownBy(() -> RootHashSignature.verify(sig, ROOT, List.of(other)))
        .isInstanceOfSatisfying(
            InvalidSignatureException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.UNTRUSTED_SIGNER));
    byte[] forged = sig.clone();
    forged[forged.length - 5] ^= 0x40;
    assertThatThrownBy(() -> RootHashSignature.verify(forged, ROOT, List.of(cert)))
        .isInstanceOfSatisfying(
            InvalidSignatureException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.BAD_SIGNATURE));
    assertThatThrownBy(
            () -> RootHashSignature.verify(java.util.Arrays.copyOf(sig, 100), ROOT, List.of(cert)))
        .isInstanceOfSatisfying(
            InvalidSignatureException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED));
  }

  @Test
  void aRootHashThatIsNotHexIsAnArgumentError() {
    assertThatThrownBy(() -> RootHashSignature.signedBytes("xyz"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RootHashSignature.signedBytes("abc"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
