package org.jverity.sig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.hash.HashAlgorithm;
import org.jverity.sig.InvalidSignatureException.Reason;
import org.jverity.testkit.Openssl;

/**
 * fsverity-utils' own known answer ({@code programs/test_sign_digest.c}): its test key and
 * certificate sign the sha256 file digest 917900b0… into exactly {@code testdata/file.sig}. The
 * files are in {@code src/test/resources/fsverity-utils} (see the README there).
 */
class FsVerityUtilsKnownAnswerTest {
  /** The digest test_sign_digest.c signs (FS_VERITY_HASH_ALG_SHA256). */
  static final byte[] DIGEST =
      HexFormat.of().parseHex("917900b0d299454aa304d5debc6f39e4af7b5abe33bdbc568d5d8f1e5c4d8652");

  @TempDir static Path dir;
  static PrivateKey key;
  static X509Certificate cert;
  static byte[] fileSig;

  static Path resource(String name) throws Exception {
    return Path.of(
        FsVerityUtilsKnownAnswerTest.class.getResource("/fsverity-utils/" + name).toURI());
  }

  @BeforeAll
  static void upstream() throws Exception {
    assertThat(sha256(resource("file.sig")))
        .as("file.sig as copied from fsverity-utils")
        .isEqualTo("5fad005c911991881344d942ca53b1ed1de4f3309c9ce917de8c6959ff19d123");
    assertThat(sha256(resource("key.pem")))
        .isEqualTo("395ba63b93c40a980c1dcf78b33a93aaa1ca04d998751cc5d326e8b10e95cb29");
    assertThat(sha256(resource("cert.pem")))
        .isEqualTo("63acca48061cfc37de79f3939cf3ce73df8c3f36404ec3e4004b8e2636abcffd");
    key = Pem.readPrivateKey(resource("key.pem"));
    cert = Pem.readCertificates(resource("cert.pem")).getFirst();
    fileSig = Files.readAllBytes(resource("file.sig"));
  }

  static String sha256(Path file) throws Exception {
    return HexFormat.of()
        .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
  }

  @Test
  void signingTheDigestWithTheTestKeyGivesFileSigByteForByte() throws Exception {
    byte[] ours = FsVeritySignature.sign(DIGEST, HashAlgorithm.SHA256, key, cert);
    assertThat(ours).hasSize(708);
    assertThat(HexFormat.of().formatHex(ours)).isEqualTo(HexFormat.of().formatHex(fileSig));
  }

  @Test
  void fileSigVerifiesAgainstCertPem() throws Exception {
    assertThat(FsVeritySignature.verify(fileSig, DIGEST, HashAlgorithm.SHA256, List.of(cert)))
        .isEqualTo(cert);
  }

  @Test
  void fileSigIsRefusedAgainstAnotherCertificate() throws Exception {
    Openssl.rsa(dir, "other", 2048);
    X509Certificate other = Pem.readCertificates(dir.resolve("other.crt")).getFirst();
    assertThatThrownBy(
            () -> FsVeritySignature.verify(fileSig, DIGEST, HashAlgorithm.SHA256, List.of(other)))
        .isInstanceOfSatisfying(
            InvalidSignatureException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.UNTRUSTED_SIGNER));
  }

  @Test
  void fileSigIsRefusedAgainstACertificateNamingTheSameSignerWithAnotherKey() throws Exception {
    // the signer is found by issuer and serial number: an impostor certificate matches them, not
    // the key
    Openssl.in(dir)
        .check(
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "impostor.key",
            "-out",
            "impostor.crt",
            "-subj",
            "/C=AU/ST=Some-State/O=Internet Widgits Pty Ltd",
            "-set_serial",
            "0x" + cert.getSerialNumber().toString(16),
            "-days",
            "30");
    X509Certificate impostor = Pem.readCertificates(dir.resolve("impostor.crt")).getFirst();
    assertThat(impostor.getIssuerX500Principal()).isEqualTo(cert.getIssuerX500Principal());
    assertThat(impostor.getSerialNumber()).isEqualTo(cert.getSerialNumber());
    assertThatThrownBy(
            () ->
                FsVeritySignature.verify(fileSig, DIGEST, HashAlgorithm.SHA256, List.of(impostor)))
        .isInstanceOfSatisfying(
            InvalidSignatureException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.BAD_SIGNATURE));
  }

  @Test
  void fileSigIsRefusedForAnotherDigest() {
    byte[] other = DIGEST.clone();
    other[31] ^= 1;
    assertThatThrownBy(
            () -> FsVeritySignature.verify(fileSig, other, HashAlgorithm.SHA256, List.of(cert)))
        .isInstanceOfSatisfying(
            InvalidSignatureException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.BAD_SIGNATURE));
  }
}
