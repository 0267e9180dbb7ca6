package org.jverity.sig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.format.HashNames;
import org.jverity.fsverity.FsVerityDescriptor;
import org.jverity.fsverity.VerifiedFile;
import org.jverity.hash.HashAlgorithm;
import org.jverity.sig.InvalidSignatureException.Reason;
import org.jverity.testkit.Fsverity;
import org.jverity.testkit.Openssl;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.ReaderOptions;

/**
 * {@link SignedFileDigest} with files, trees and signatures made by fsverity-utils ({@code fsverity
 * digest --out-merkle-tree}, {@code fsverity sign}): a trusted signature opens the file and it
 * reads back exactly; any other signature refuses it before a byte is read; damage under a signed
 * digest still fails the read of its block.
 */
class SignedFileDigestTest {
  @TempDir static Path dir;
  static List<X509Certificate> signer;
  static List<X509Certificate> other;

  @BeforeAll
  static void keys() throws Exception {
    Openssl.rsa(dir, "signer", 2048);
    Openssl.rsa(dir, "other", 2048);
    signer = Pem.readCertificates(dir.resolve("signer.crt"));
    other = Pem.readCertificates(dir.resolve("other.crt"));
  }

  /** A file of seeded bytes, its tree and its signature by signer, all from fsverity. */
  record Signed(Path file, Path tree, byte[] signature, byte[] bytes) {}

  static Signed make(String name, int size, String alg) throws Exception {
    byte[] bytes = new byte[size];
    new Random(size + name.hashCode()).nextBytes(bytes);
    Path file = Files.write(dir.resolve(name), bytes);
    Fsverity.tool()
        .in(dir)
        .check("digest", name, "--hash-alg=" + alg, "--out-merkle-tree=" + name + ".merkle");
    Fsverity.tool()
        .in(dir)
        .check(
            "sign",
            name,
            name + ".sig",
            "--hash-alg=" + alg,
            "--key=signer.key",
            "--cert=signer.crt");
    return new Signed(
        file, dir.resolve(name + ".merkle"), Files.readAllBytes(dir.resolve(name + ".sig")), bytes);
  }

  static VerifiedFile open(
      Signed s, byte[] signature, List<X509Certificate> trusted, HashAlgorithm alg)
      throws Exception {
    return SignedFileDigest.open(
        s.file(),
        s.tree(),
        signature,
        trusted,
        alg,
        VerifiedFile.Parameters.DEFAULTS,
        ReaderOptions.DEFAULTS);
  }

  @Test
  void aTrustedSignatureOpensTheFileAndItReadsBackExactly() throws Exception {
    for (String alg : new String[] {"sha256", "sha512"}) {
      Signed s = make("good-" + alg, 300_001, alg);
      try (VerifiedFile f = open(s, s.signature(), signer, HashNames.fromName(alg))) {
        assertThat(f.read(0, s.bytes().length)).isEqualTo(s.bytes());
        assertThat(f.digest()).startsWith(alg + ":");
      }
    }
  }

  @Test
  void checkReturnsTheDigestOpenTakes() throws Exception {
    Signed s = make("check", 5000, "sha256");
    FsVerityDescriptor claimed =
        VerifiedFile.describe(
            s.file(), s.tree(), HashAlgorithm.SHA256, VerifiedFile.Parameters.DEFAULTS);
    String digest = SignedFileDigest.check(s.signature(), claimed, signer);
    assertThat(digest).isEqualTo(claimed.formattedDigest());
    String printed = Fsverity.tool().in(dir).check("digest", "check").out().strip();
    assertThat(printed).isEqualTo(digest + " check");
  }

  @Test
  void otherSignaturesRefuseTheFile() throws Exception {
    Signed s = make("refused", 100_000, "sha256");
    Signed another = make("another", 100_000, "sha256");
    byte[] forged = s.signature().clone();
    forged[forged.length - 3] ^= 1;
    assertRefused(
        () -> open(s, s.signature(), other, HashAlgorithm.SHA256), Reason.UNTRUSTED_SIGNER);
    assertRefused(() -> open(s, forged, signer, HashAlgorithm.SHA256), Reason.BAD_SIGNATURE);
    assertRefused(
        () -> open(s, another.signature(), signer, HashAlgorithm.SHA256), Reason.BAD_SIGNATURE);
    assertRefused(
        () -> open(s, s.signature(), signer, HashAlgorithm.SHA512), Reason.WRONG_DIGEST_ALGORITHM);
    Files.write(
        s.tree(),
        new byte[4096],
        java.nio.file.StandardOpenOption.WRITE); // the top (and only) tree block
    assertRefused(() -> open(s, s.signature(), signer, HashAlgorithm.SHA256), Reason.BAD_SIGNATURE);
  }

  private static void assertRefused(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable open, Reason reason) {
    assertThatThrownBy(open)
        .isInstanceOfSatisfying(
            InvalidSignatureException.class, e -> assertThat(e.reason()).isEqualTo(reason));
  }

  @Test
  void aDamagedDataBlockUnderASignedDigestFailsItsRead() throws Exception {
    Signed s = make("damaged", 1 << 20, "sha256");
    byte[] bytes = s.bytes().clone();
    bytes[70_000] ^= 1; // data block 17
    Files.write(s.file(), bytes);
    try (VerifiedFile f = open(s, s.signature(), signer, HashAlgorithm.SHA256)) {
      assertThat(f.read(0, 17 * 4096)).isEqualTo(java.util.Arrays.copyOf(s.bytes(), 17 * 4096));
      assertThatThrownBy(() -> f.read(0, bytes.length))
          .isInstanceOfSatisfying(
              CorruptBlockException.class, e -> assertThat(e.dataBlock()).isEqualTo(17));
    }
  }
}
