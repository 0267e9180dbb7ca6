package org.jverity.avb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * ML-DSA keys from PEM files, as {@code --key} takes them: the JDK's PKCS#8 (expanded form) and RFC
 * 9881's seed-only form, the one openssl 3.5 writes by default, which the JDK cannot read alone.
 */
class MlDsaPemTest {
  @TempDir Path dir;

  static Path pem(Path file, String label, byte[] der) throws Exception {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return Files.writeString(
        file, "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n");
  }

  @ParameterizedTest
  @CsvSource({"ML-DSA-65, MLDSA65, 12", "ML-DSA-87, MLDSA87, 13"})
  void signsWithAPemKeyInEitherForm(String jca, String name, String oidLast) throws Exception {
    KeyPair keys = KeyPairGenerator.getInstance(jca).generateKeyPair();
    byte[] expectedBlob = AvbPublicKey.blob(keys.getPublic());
    Path expanded = pem(dir.resolve("expanded.pem"), "PRIVATE KEY", keys.getPrivate().getEncoded());
    Path pub = pem(dir.resolve("pub.pem"), "PUBLIC KEY", keys.getPublic().getEncoded());
    assertThat(AvbPublicKey.readBlob(expanded)).isEqualTo(expectedBlob);
    assertThat(AvbPublicKey.readBlob(pub)).isEqualTo(expectedBlob);

    // a seed-only key (RFC 9881: [0] IMPLICIT OCTET STRING of 32 bytes)
    byte[] seed = new byte[32];
    for (int i = 0; i < 32; i++) {
      seed[i] = (byte) i;
    }
    byte[] seedKey =
        java.util.HexFormat.of()
            .parseHex("3034020100300b06096086480165030403" + oidLast + "04228020");
    byte[] der = new byte[seedKey.length + 32];
    System.arraycopy(seedKey, 0, der, 0, seedKey.length);
    System.arraycopy(seed, 0, der, seedKey.length, 32);
    Path seedPem = pem(dir.resolve("seed.pem"), "PRIVATE KEY", der);

    AvbAlgorithm algorithm = AvbAlgorithm.named(name);
    KeyPair fromSeed = AvbPublicKey.readKeyPair(seedPem);
    byte[] vbmeta =
        new VbmetaBuilder(AvbSigner.of(algorithm, fromSeed))
            .descriptors(List.of(InfoImageTest.sampleHashtree()))
            .build();
    VbmetaImage image = VbmetaImage.parse(vbmeta);
    assertThat(image.publicKey()).isEqualTo(AvbPublicKey.readBlob(seedPem));
    assertThat(image.verifySignature()).isTrue();
    // the same seed gives the same key every time (FIPS 204 key generation is deterministic)
    assertThat(AvbPublicKey.blob(AvbPublicKey.readKeyPair(seedPem).getPublic()))
        .isEqualTo(image.publicKey());
  }
}
