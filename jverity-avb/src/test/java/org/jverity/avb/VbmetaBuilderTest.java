package org.jverity.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testkit.AvbTestKeys;

/** {@link VbmetaBuilder} against avbtool's layout and AVB.md's make_vbmeta_image vectors. */
class VbmetaBuilderTest {
  @TempDir Path dir;

  static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  AvbSigner signer(String key, AvbAlgorithm algorithm) throws Exception {
    return AvbSigner.of(algorithm, AvbPublicKey.readPrivateKey(AvbTestKeys.copy(key, dir)));
  }

  @Test
  void emptyUnsignedVbmetaIsAvbtools() throws Exception {
    byte[] blob = new VbmetaBuilder(AvbSigner.NONE).build();
    assertThat(blob).hasSize(256);
    assertThat(sha256(blob))
        .isEqualTo("ba4c6a054defd71c4ee86adbe044a72ffc6556cb25070802f5b42f0f560cfc31");
  }

  @Test
  void emptyVbmetaSignedWithTheAospTestKeyIsAvbtools() throws Exception {
    byte[] blob =
        new VbmetaBuilder(signer("testkey_rsa2048.pem", AvbAlgorithm.SHA256_RSA2048)).build();
    assertThat(blob).hasSize(1152);
    assertThat(sha256(blob))
        .isEqualTo("a50bfd0f547ac4e19d148dcf7d18ca0207a5cd2cacb898ec04fa1cc672778fe7");
    VbmetaImage image = VbmetaImage.parse(blob);
    assertThat(image.verifySignature()).isTrue();
    assertThat(image.publicKey()).hasSize(520);
  }

  @Test
  void layoutPutsKeyAndMetadataAfterTheDescriptorsEvenWhenEmpty() throws Exception {
    HashtreeDescriptor ht = InfoImageTest.sampleHashtree();
    VbmetaHeader h =
        VbmetaImage.parse(new VbmetaBuilder(AvbSigner.NONE).descriptors(List.of(ht)).build())
            .header();
    assertThat(h.descriptorsOffset()).isZero();
    assertThat(h.descriptorsSize()).isEqualTo(240);
    assertThat(h.publicKeyOffset()).isEqualTo(0xf0);
    assertThat(h.publicKeyMetadataOffset()).isEqualTo(0xf0);
    assertThat(h.auxiliaryDataBlockSize()).isEqualTo(256);
    assertThat(h.authenticationDataBlockSize()).isZero();
  }

  @Test
  void signedLayoutHasHashThenSignatureAndKeyThenMetadata() throws Exception {
    byte[] metadata = {1, 2, 3, 4, 5};
    byte[] blob =
        new VbmetaBuilder(signer("testkey_rsa4096.pem", AvbAlgorithm.SHA512_RSA4096))
            .descriptors(List.of(PropertyDescriptor.of("com.example.foo", "bar")))
            .publicKeyMetadata(metadata)
            .rollbackIndex(5)
            .rollbackIndexLocation(2)
            .requiredLibavbVersionMinor(2)
            .build();
    VbmetaImage image = VbmetaImage.parse(blob);
    VbmetaHeader h = image.header();
    assertThat(h.hashOffset()).isZero();
    assertThat(h.hashSize()).isEqualTo(64);
    assertThat(h.signatureOffset()).isEqualTo(64);
    assertThat(h.signatureSize()).isEqualTo(512);
    assertThat(h.authenticationDataBlockSize()).isEqualTo(576);
    assertThat(h.publicKeyOffset()).isEqualTo(h.descriptorsSize());
    assertThat(h.publicKeyMetadataOffset()).isEqualTo(h.descriptorsSize() + 1032);
    assertThat(h.auxiliaryDataBlockSize() % 64).isZero();
    assertThat(image.publicKeyMetadata()).isEqualTo(metadata);
    assertThat(h.rollbackIndex()).isEqualTo(5);
    assertThat(h.rollbackIndexLocation()).isEqualTo(2);
    assertThat(h.requiredLibavbVersionMinor()).isEqualTo(2);
    assertThat(image.descriptors())
        .containsExactly(PropertyDescriptor.of("com.example.foo", "bar"));
    assertThat(image.verifySignature()).isTrue();
    assertThat(image.encode()).isEqualTo(blob);
  }

  @Test
  void releaseStringIsCutAt47Bytes() throws Exception {
    String longer = "avbtool 1.3.0 " + "x".repeat(60);
    VbmetaImage image =
        VbmetaImage.parse(new VbmetaBuilder(AvbSigner.NONE).releaseString(longer).build());
    assertThat(image.header().releaseString()).isEqualTo(longer.substring(0, 47));
    assertThat(
            VbmetaImage.parse(new VbmetaBuilder(AvbSigner.NONE).build()).header().releaseString())
        .isEqualTo("avbtool 1.3.0");
  }

  @Test
  void refusesAKeyOfAnotherSize() throws Exception {
    assertThatThrownBy(() -> signer("testkey_rsa2048.pem", AvbAlgorithm.SHA256_RSA4096))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a 2048-bit RSA key (expected: 4096 bits for SHA256_RSA4096)");
  }
}
