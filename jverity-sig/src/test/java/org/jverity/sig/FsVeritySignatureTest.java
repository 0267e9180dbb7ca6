package org.jverity.sig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.jverity.format.HashNames;
import org.jverity.hash.HashAlgorithm;
import org.jverity.sig.InvalidSignatureException.Reason;
import org.jverity.testkit.Openssl;

/**
 * {@link FsVeritySignature} against openssl: the same bytes as {@code openssl smime -sign -nocerts
 * -noattr -binary} (what {@code fsverity sign} calls), signatures made by openssl verify, and
 * forged, truncated, untrusted and wrong-algorithm signatures are refused with their reason.
 */
class FsVeritySignatureTest {
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
  }

  static byte[] digest(HashAlgorithm alg, long seed) {
    byte[] d = new byte[alg.digestSize()];
    new Random(seed).nextBytes(d);
    return d;
  }

  /** openssl's PKCS7_sign over {@code content} with the given flags, as DER. */
  static byte[] openssl(String tool, byte[] content, String md, String... extra) throws Exception {
    Path in = Files.createTempFile(dir, "content", "");
    Path out = Files.createTempFile(dir, "sig", "");
    Files.write(in, content);
    var cmd =
        new java.util.ArrayList<>(
            List.of(
                tool,
                "-sign",
                "-binary",
                "-in",
                in.toString(),
                "-signer",
                "signer.crt",
                "-inkey",
                "signer.key",
                "-md",
                md,
                "-outform",
                "der",
                "-out",
                out.toString()));
    cmd.addAll(List.of(extra));
    Openssl.in(dir).check(cmd);
    return Files.readAllBytes(out);
  }

  @Test
  void theFormattedDigestIsMagicAlgorithmSizeDigest() {
    byte[] d = digest(HashAlgorithm.SHA256, 1);
    byte[] f = FsVeritySignature.formattedDigest(d, HashAlgorithm.SHA256);
    assertThat(HexFormat.of().formatHex(Arrays.copyOf(f, 12)))
        .isEqualTo("4653566572697479" + "0100" + "2000");
    assertThat(Arrays.copyOfRange(f, 12, f.length)).isEqualTo(d);
    assertThat(
            FsVeritySignature.formattedDigest(
                digest(HashAlgorithm.SHA512, 1), HashAlgorithm.SHA512))
        .startsWith(0x46, 0x53, 0x56, 0x65, 0x72, 0x69, 0x74, 0x79, 2, 0, 64, 0);
    assertThatThrownBy(() -> FsVeritySignature.formattedDigest(d, HashAlgorithm.SHA1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sha256 or sha512");
  }

  @ParameterizedTest
  @ValueSource(strings = {"sha256", "sha512"})
  void rsaSignaturesAreOpensslsBytes(String name) throws Exception {
    HashAlgorithm alg = HashNames.fromName(name);
    for (long seed = 0; seed < 3; seed++) {
      byte[] d = digest(alg, seed);
      byte[] ours = FsVeritySignature.sign(d, alg, key, cert);
      byte[] theirs =
          openssl(
              "smime",
              FsVeritySignature.formattedDigest(d, alg),
              alg.kernelName(),
              "-nocerts",
              "-noattr");
      assertThat(HexFormat.of().formatHex(ours)).isEqualTo(HexFormat.of().formatHex(theirs));
      assertThat(FsVeritySignature.verify(ours, d, alg, List.of(other, cert))).isEqualTo(cert);
    }
  }

  @Test
  void opensslCmsSignaturesWithAttributesAndCertificatesVerify() throws Exception {
    byte[] d = digest(HashAlgorithm.SHA256, 7);
    byte[] sig =
        openssl("cms", FsVeritySignature.formattedDigest(d, HashAlgorithm.SHA256), "sha256");
    assertThat(FsVeritySignature.verify(sig, d, HashAlgorithm.SHA256, List.of(cert)))
        .isEqualTo(cert);
    // the certificate inside the signature does not make it trusted
    assertThatThrownBy(() -> FsVeritySignature.verify(sig, d, HashAlgorithm.SHA256, List.of(other)))
        .isInstanceOfSatisfying(
            InvalidSignatureException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.UNTRUSTED_SIGNER));
  }

  @Test
  void ecdsaSignaturesVerifyHereAndInOpenssl() throws Exception {
    Openssl.ec(dir, "ec");
    PrivateKey ecKey = Pem.readPrivateKey(dir.resolve("ec.key"));
    X509Certificate ecCert = Pem.readCertificates(dir.resolve("ec.crt")).getFirst();
    byte[] d = digest(HashAlgorithm.SHA512, 3);
    byte[] sig = FsVeritySignature.sign(d, HashAlgorithm.SHA512, ecKey, ecCert);
    assertThat(FsVeritySignature.verify(sig, d, HashAlgorithm.SHA512, List.of(ecCert)))
        .isEqualTo(ecCert);
    Files.write(dir.resolve("ec.sig"), sig);
    Files.write(
        dir.resolve("ec.content"), FsVeritySignature.formattedDigest(d, HashAlgorithm.SHA512));
    Openssl.in(dir)
        .check(
            "smime",
            "-verify",
            "-binary",
            "-inform",
            "der",
            "-in",
            "ec.sig",
            "-content",
            "ec.content",
            "-certfile",
            "ec.crt",
            "-nointern",
            "-CAfile",
            "ec.crt",
            "-out",
            "/dev/null");
  }

  @Test
  void aFlippedByteIsRefused() throws Exception {
    byte[] d = digest(HashAlgorithm.SHA256, 11);
    byte[] sig = FsVeritySignature.sign(d, HashAlgorithm.SHA256, key, cert);
    for (int at : new int[] {sig.length - 1, sig.length - 100}) { // inside the RSA signature value
      byte[] forged = sig.clone();
      forged[at] ^= 0x01;
      assertThatThrownBy(
              () -> FsVeritySignature.verify(forged, d, HashAlgorithm.SHA256, List.of(cert)))
          .isInstanceOfSatisfying(
              InvalidSignatureException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.BAD_SIGNATURE);
                assertThat(e.getMessage()).doesNotContain("\n");
              });
    }
  }

  @Test
  void anotherDigestIsRefused() throws Exception {
    byte[] d = digest(HashAlgorithm.SHA256, 12);
    byte[] sig = FsVeritySignature.sign(d, HashAlgorithm.SHA256, key, cert);
    byte[] changed = d.clone();
    changed[0] ^= (byte) 0x80;
    assertThatThrownBy(
            () -> FsVeritySignature.verify(sig, changed, HashAlgorithm.SHA256, List.of(cert)))
        .isInstanceOfSatisfying(
            InvalidSignatureException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.BAD_SIGNATURE));
  }

  @Test
  void truncatedSignaturesAreRefused() throws Exception {
    byte[] d = digest(HashAlgorithm.SHA256, 13);
    byte[] sig = FsVeritySignature.sign(d, HashAlgorithm.SHA256, key, cert);
    for (int len : new int[] {0, 1, 10, sig.length / 2, sig.length - 1}) {
      byte[] cut = Arrays.copyOf(sig, len);
      assertThatThrownBy(
              () -> FsVeritySignature.verify(cut, d, HashAlgorithm.SHA256, List.of(cert)))
          .as("%d bytes", len)
          .isInstanceOfSatisfying(
              InvalidSignatureException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.MALFORMED);
                assertThat(e.getMessage())
                    .startsWith("fs-verity signature: not a DER PKCS#7 signature")
                    .doesNotContain("\n");
              });
    }
  }

  @Test
  void aSignatureByAnUntrustedCertificateIsRefused() throws Exception {
    byte[] d = digest(HashAlgorithm.SHA256, 14);
    byte[] sig = FsVeritySignature.sign(d, HashAlgorithm.SHA256, key, cert);
    assertThatThrownBy(() -> FsVeritySignature.verify(sig, d, HashAlgorithm.SHA256, List.of(other)))
        .isInstanceOfSatisfying(
            InvalidSignatureException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.UNTRUSTED_SIGNER);
              assertThat(e.getMessage()).contains("CN=signer").contains("no trusted certificate");
            });
  }

  @Test
  void anotherDigestAlgorithmIsRefused() throws Exception {
    byte[] d = digest(HashAlgorithm.SHA256, 15);
    byte[] sig =
        openssl(
            "smime",
            FsVeritySignature.formattedDigest(d, HashAlgorithm.SHA256),
            "sha512",
            "-nocerts",
            "-noattr");
    assertThatThrownBy(() -> FsVeritySignature.verify(sig, d, HashAlgorithm.SHA256, List.of(cert)))
        .isInstanceOfSatisfying(
            InvalidSignatureException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.WRONG_DIGEST_ALGORITHM);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "fs-verity signature: signed with digest algorithm sha512 (expected: sha256)");
            });
  }

  @Test
  void aKeyThatIsNotTheCertificatesIsRefusedWhenSigning() throws Exception {
    Openssl.ec(dir, "ec2");
    PrivateKey ecKey = Pem.readPrivateKey(dir.resolve("ec2.key"));
    assertThatThrownBy(
            () ->
                FsVeritySignature.sign(
                    digest(HashAlgorithm.SHA256, 1), HashAlgorithm.SHA256, ecKey, cert))
        .isInstanceOf(java.security.InvalidKeyException.class)
        .hasMessageContaining("certificate's key");
  }
}
