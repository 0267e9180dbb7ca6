package org.jverity.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.testkit.AvbTestKeys;
import org.jverity.testkit.Openssl;

/**
 * Signed vbmeta images: openssl verifies our PKCS#1 v1.5 signature over header ‖ aux with the PEM
 * key, and libavb's checks refuse every flipped byte with one line saying what did not match.
 */
class VbmetaSignatureTest {
  @TempDir Path dir;

  static final List<Descriptor> DESCRIPTORS =
      List.of(InfoImageTest.sampleHashtree(), PropertyDescriptor.of("com.example.foo", "bar"));

  byte[] signed(String key, AvbAlgorithm algorithm) throws Exception {
    Path pem = AvbTestKeys.copy(key, dir);
    return new VbmetaBuilder(AvbSigner.of(algorithm, AvbPublicKey.readPrivateKey(pem)))
        .descriptors(DESCRIPTORS)
        .build();
  }

  @ParameterizedTest
  @CsvSource({
    "testkey_rsa2048.pem, SHA256_RSA2048, -sha256",
    "testkey_rsa4096.pem, SHA256_RSA4096, -sha256",
    "testkey_rsa8192.pem, SHA256_RSA8192, -sha256",
    "testkey_rsa2048.pem, SHA512_RSA2048, -sha512",
    "testkey_rsa4096.pem, SHA512_RSA4096, -sha512",
    "testkey_rsa8192.pem, SHA512_RSA8192, -sha512",
  })
  void opensslVerifiesTheSignatureOverHeaderAndAux(String key, String name, String digest)
      throws Exception {
    AvbAlgorithm algorithm = AvbAlgorithm.named(name);
    byte[] blob = signed(key, algorithm);
    VbmetaImage image = VbmetaImage.parse(blob);
    assertThat(image.algorithm()).isEqualTo(algorithm);
    assertThat(image.header().authenticationDataBlockSize()).isEqualTo(algorithm.authBlockSize());
    assertThat(image.signature()).hasSize(algorithm.signatureSize());
    assertThat(image.verifySignature()).isTrue();

    Files.write(dir.resolve("data"), image.signedBytes());
    Files.write(dir.resolve("sig"), image.signature());
    Openssl.in(dir).check("rsa", "-in", key, "-pubout", "-out", "pub.pem");
    String out =
        Openssl.in(dir)
            .check("dgst", digest, "-verify", "pub.pem", "-signature", "sig", "data")
            .out();
    assertThat(out).contains("Verified OK");
    // and the stored hash is the digest openssl computes
    String hex = Openssl.in(dir).check("dgst", digest, "-r", "data").out().split(" ")[0].strip();
    assertThat(java.util.HexFormat.of().formatHex(image.hash())).isEqualTo(hex);
  }

  @Test
  void signedBytesAreHeaderThenAux() throws Exception {
    byte[] blob = signed("testkey_rsa2048.pem", AvbAlgorithm.SHA256_RSA2048);
    VbmetaImage image = VbmetaImage.parse(blob);
    int auth = (int) image.header().authenticationDataBlockSize();
    byte[] expected = new byte[blob.length - auth];
    System.arraycopy(blob, 0, expected, 0, 256);
    System.arraycopy(blob, 256 + auth, expected, 256, blob.length - 256 - auth);
    assertThat(image.signedBytes()).isEqualTo(expected);
  }

  @Test
  void unsignedImagesAreNotVerified() throws Exception {
    VbmetaImage image =
        VbmetaImage.parse(new VbmetaBuilder(AvbSigner.NONE).descriptors(DESCRIPTORS).build());
    assertThat(image.verifySignature()).isFalse();
    assertThat(image.publicKey()).isEmpty();
    assertThat(image.hash()).isEmpty();
    assertThat(image.signature()).isEmpty();
  }

  @Test
  void aFlippedHeaderByteIsAHashMismatch() throws Exception {
    byte[] blob = signed("testkey_rsa2048.pem", AvbAlgorithm.SHA256_RSA2048);
    blob[112 + 7] ^= 1; // rollback_index
    assertThatThrownBy(() -> VbmetaImage.parse(blob).verifySignature())
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageStartingWith("vbmeta: hash mismatch (computed ")
        .hasMessageNotContaining("\n");
  }

  @Test
  void aFlippedAuxByteIsAHashMismatch() throws Exception {
    byte[] blob = signed("testkey_rsa4096.pem", AvbAlgorithm.SHA256_RSA4096);
    VbmetaImage image = VbmetaImage.parse(blob);
    int aux = 256 + (int) image.header().authenticationDataBlockSize();
    blob[aux + (int) image.header().descriptorsSize() - 1] ^= 1; // padding of the last descriptor
    assertThatThrownBy(() -> VbmetaImage.parse(blob).verifySignature())
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageStartingWith("vbmeta: hash mismatch");
  }

  @Test
  void aFlippedKeyByteFailsTheSignature() throws Exception {
    byte[] blob = signed("testkey_rsa2048.pem", AvbAlgorithm.SHA256_RSA2048);
    VbmetaImage image = VbmetaImage.parse(blob);
    byte[] key = image.publicKey();
    key[100] ^= 1;
    // a re-signed hash over the changed aux, as an attacker who swaps the key would compute it
    byte[] tampered = withKey(blob, image, key);
    assertThatThrownBy(() -> VbmetaImage.parse(tampered).verifySignature())
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageStartingWith("vbmeta: signature mismatch");
  }

  @Test
  void aFlippedSignatureByteFailsTheSignature() throws Exception {
    byte[] blob = signed("testkey_rsa2048.pem", AvbAlgorithm.SHA256_RSA2048);
    blob[256 + 32 + 10] ^= 1;
    assertThatThrownBy(() -> VbmetaImage.parse(blob).verifySignature())
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageStartingWith("vbmeta: signature mismatch (")
        .hasMessageNotContaining("\n");
  }

  @Test
  void aFlippedStoredHashIsAHashMismatch() throws Exception {
    byte[] blob = signed("testkey_rsa2048.pem", AvbAlgorithm.SHA256_RSA2048);
    blob[256] ^= 1;
    assertThatThrownBy(() -> VbmetaImage.parse(blob).verifySignature())
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageStartingWith("vbmeta: hash mismatch");
  }

  @Test
  void aKeyOfAnotherSizeThanTheAlgorithmIsRefused() throws Exception {
    byte[] blob = signed("testkey_rsa2048.pem", AvbAlgorithm.SHA256_RSA2048);
    VbmetaImage image = VbmetaImage.parse(blob);
    byte[] other = AvbPublicKey.readBlob(AvbTestKeys.copy("testkey_rsa4096.pem", dir));
    // a 4096-bit key in the slot of a 2048-bit one: rebuild with an aux that holds it
    VbmetaHeader h = image.header();
    byte[] aux = new byte[Layout.round64((int) h.descriptorsSize() + other.length)];
    System.arraycopy(blob, 256 + 320, aux, 0, (int) h.descriptorsSize());
    System.arraycopy(other, 0, aux, (int) h.descriptorsSize(), other.length);
    VbmetaHeader changed =
        new VbmetaHeader(
            1,
            0,
            320,
            aux.length,
            1,
            0,
            32,
            32,
            256,
            h.descriptorsSize(),
            other.length,
            h.descriptorsSize() + other.length,
            0,
            0,
            h.descriptorsSize(),
            0,
            0,
            0,
            "avbtool 1.3.0");
    byte[] header = changed.encode();
    byte[] auth = Arrays.copyOfRange(blob, 256, 256 + 320);
    byte[] signed = concat(header, aux);
    System.arraycopy(SignatureCheck.digest(AvbAlgorithm.SHA256_RSA2048, signed), 0, auth, 0, 32);
    byte[] tampered = concat(header, auth, aux);
    assertThatThrownBy(() -> VbmetaImage.parse(tampered).verifySignature())
        .isInstanceOf(AvbVerificationException.class)
        .hasMessage("vbmeta: embedded key has 4096 bits (expected: 2048 for SHA256_RSA2048)");
  }

  /** The blob with {@code key} in place of its key and the hash recomputed (the signature kept). */
  static byte[] withKey(byte[] blob, VbmetaImage image, byte[] key) {
    byte[] out = blob.clone();
    VbmetaHeader h = image.header();
    int aux = 256 + (int) h.authenticationDataBlockSize();
    System.arraycopy(key, 0, out, aux + (int) h.publicKeyOffset(), key.length);
    byte[] signed = new byte[256 + (int) h.auxiliaryDataBlockSize()];
    System.arraycopy(out, 0, signed, 0, 256);
    System.arraycopy(out, aux, signed, 256, signed.length - 256);
    byte[] hash = SignatureCheck.digest(image.algorithm(), signed);
    System.arraycopy(hash, 0, out, 256, hash.length);
    return out;
  }

  static byte[] concat(byte[]... parts) {
    ByteBuffer b = ByteBuffer.allocate(Arrays.stream(parts).mapToInt(p -> p.length).sum());
    for (byte[] p : parts) {
      b.put(p);
    }
    return b.array();
  }
}
