package org.jverity.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** ML-DSA-65/87 vbmeta (Android 17), signed and verified through the JDK's FIPS 204. */
class MlDsaTest {
  static KeyPair generate(String name) throws Exception {
    return KeyPairGenerator.getInstance(name).generateKeyPair();
  }

  @ParameterizedTest
  @CsvSource({"ML-DSA-65, MLDSA65, 1952, 3309, 3328", "ML-DSA-87, MLDSA87, 2592, 4627, 4672"})
  void signsAndVerifies(String jca, String name, int raw, int signature, int auth)
      throws Exception {
    AvbAlgorithm algorithm = AvbAlgorithm.named(name);
    KeyPair keys = generate(jca);
    byte[] blob = AvbPublicKey.blob(keys.getPublic());
    assertThat(blob).hasSize(4 + raw);
    assertThat(ByteBuffer.wrap(blob).getInt(0)).isEqualTo(raw);
    assertThat(algorithm.publicKeySize()).isEqualTo(4 + raw);
    assertThat(AvbPublicKey.decode(blob).getEncoded()).isEqualTo(keys.getPublic().getEncoded());

    byte[] vbmeta =
        new VbmetaBuilder(AvbSigner.of(algorithm, keys))
            .descriptors(List.of(InfoImageTest.sampleHashtree()))
            .build();
    VbmetaImage image = VbmetaImage.parse(vbmeta);
    assertThat(image.algorithm()).isEqualTo(algorithm);
    assertThat(image.hash()).isEmpty();
    assertThat(image.signature()).hasSize(signature);
    assertThat(image.header().authenticationDataBlockSize()).isEqualTo(auth);
    assertThat(image.publicKey()).isEqualTo(blob);
    assertThat(image.verifySignature()).isTrue();

    byte[] tampered = vbmeta.clone();
    tampered[112 + 7] ^= 1; // rollback index
    assertThatThrownBy(() -> VbmetaImage.parse(tampered).verifySignature())
        .isInstanceOf(AvbVerificationException.class)
        .hasMessage("vbmeta: signature mismatch (" + name + " with the embedded key)");
  }

  @ParameterizedTest
  @CsvSource({"ML-DSA-65, MLDSA87", "ML-DSA-87, MLDSA65"})
  void refusesAKeyOfTheOtherParameterSet(String jca, String name) throws Exception {
    KeyPair keys = generate(jca);
    assertThatThrownBy(() -> AvbSigner.of(AvbAlgorithm.named(name), keys))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("(expected: an ML-DSA-");
  }
}
