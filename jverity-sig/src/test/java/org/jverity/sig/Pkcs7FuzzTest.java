package org.jverity.sig;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.jverity.hash.HashAlgorithm;
import org.jverity.testkit.ParserContract;

/**
 * Any bytes given as a PKCS#7 signature, of an fs-verity file digest and of a dm-verity root hash,
 * checked against fsverity-utils' test certificate: the certificate when the bytes sign the digest
 * (the seed {@code file.sig} does), else one {@link InvalidSignatureException}, whatever
 * BouncyCastle's DER parser makes of them.
 */
class Pkcs7FuzzTest {
  private static final byte[] DIGEST =
      HexFormat.of().parseHex("917900b0d299454aa304d5debc6f39e4af7b5abe33bdbc568d5d8f1e5c4d8652");
  private static final String ROOT =
      "e522df0f97da4febb882ac40f30b37dc0b444bf6df418929463fa25280f09d5c";
  private static X509Certificate cert;

  @BeforeAll
  static void certificate() throws Exception {
    cert =
        Pem.readCertificates(
                Path.of(Pkcs7FuzzTest.class.getResource("/fsverity-utils/cert.pem").toURI()))
            .getFirst();
  }

  @FuzzTest(maxDuration = "2m")
  void verifiesOrRefuses(byte[] signature) {
    ParserContract.holds(
        signature.length,
        () ->
            assertThat(
                    FsVeritySignature.verify(
                        signature, DIGEST, HashAlgorithm.SHA256, List.of(cert)))
                .isEqualTo(cert),
        InvalidSignatureException.class);
    ParserContract.holds(
        signature.length,
        () -> assertThat(RootHashSignature.verify(signature, ROOT, List.of(cert))).isEqualTo(cert),
        InvalidSignatureException.class);
  }
}
