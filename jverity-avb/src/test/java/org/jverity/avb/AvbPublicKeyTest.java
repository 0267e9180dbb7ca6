package org.jverity.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.testkit.AvbTestKeys;
import org.jverity.testkit.Openssl;

/** The public-key blob of AOSP's test keys against AVB.md 5.2 (avbtool's extract_public_key). */
class AvbPublicKeyTest {
  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource({
    "testkey_rsa2048.pem, 520, cdbb77177f731920bbe0a0f94f84d9038ae0617d,"
        + " 22de3994532196f61c039e90260d78a93a4c57362c7e789be928036e80b77c8c, c9d87d7b",
    "testkey_rsa4096.pem, 1032, 2597c218aae470a130f61162feaae70afd97f011,"
        + " 7728e30f50bfa5cea165f473175a08803f6a8346642b5aa10913e9d9e6defef6, 55d904ad",
    "testkey_rsa8192.pem, 2056, 5227b569de003adc7f8ec3fc03e05dfbd969abad,"
        + " e15e2365469ce672a91d02cc8d9c2f29b787481e574d3b56ac774153d7ced614, ef8168f3",
  })
  void aospKeyBlobsMatchAvbtool(String name, int length, String sha1, String sha256, String n0inv)
      throws Exception {
    Path pem = AvbTestKeys.copy(name, dir);
    byte[] blob = AvbPublicKey.readBlob(pem);

    assertThat(blob).hasSize(length);
    assertThat(AvbPublicKey.sha1(blob)).isEqualTo(sha1);
    assertThat(AvbPublicKey.sha256(blob)).isEqualTo(sha256);
    assertThat(HexFormat.of().formatHex(blob, 4, 8)).isEqualTo(n0inv);
    assertThat(ByteBuffer.wrap(blob).getInt(0)).isEqualTo((length - 8) * 4);
    RSAPrivateCrtKey key = (RSAPrivateCrtKey) AvbPublicKey.readPrivateKey(pem);
    assertThat(AvbPublicKey.blob(publicOf(key))).isEqualTo(blob);
    // the decoded key is the PEM's: modulus and exponent
    RSAPublicKey decoded = (RSAPublicKey) AvbPublicKey.decode(blob);
    assertThat(decoded.getModulus()).isEqualTo(key.getModulus());
    assertThat(decoded.getPublicExponent()).isEqualTo(BigInteger.valueOf(65537));
  }

  @Test
  void readsPemPublicKeysAndRawBlobsAlike() throws Exception {
    Path pem = AvbTestKeys.copy("testkey_rsa4096.pem", dir);
    byte[] expected = AvbPublicKey.readBlob(pem);
    Openssl.in(dir).check("rsa", "-in", pem.toString(), "-pubout", "-out", "pub.pem");
    Openssl.in(dir).check("rsa", "-in", pem.toString(), "-RSAPublicKey_out", "-out", "pkcs1.pem");
    Files.write(dir.resolve("key.bin"), expected);

    assertThat(AvbPublicKey.readBlob(dir.resolve("pub.pem"))).isEqualTo(expected);
    assertThat(AvbPublicKey.readBlob(dir.resolve("pkcs1.pem"))).isEqualTo(expected);
    assertThat(AvbPublicKey.readBlob(dir.resolve("key.bin"))).isEqualTo(expected);
  }

  @Test
  void rrIsTwoToTheTwiceBitsModN() throws Exception {
    byte[] blob = AvbPublicKey.readBlob(AvbTestKeys.path("testkey_rsa2048.pem"));
    BigInteger n = new BigInteger(1, java.util.Arrays.copyOfRange(blob, 8, 8 + 256));
    BigInteger rr = new BigInteger(1, java.util.Arrays.copyOfRange(blob, 8 + 256, 8 + 512));
    assertThat(rr).isEqualTo(BigInteger.TWO.pow(4096).mod(n));
    long n0inv = Integer.toUnsignedLong(ByteBuffer.wrap(blob).getInt(4));
    // n0inv * n ≡ -1 (mod 2^32)
    assertThat(
            n.multiply(BigInteger.valueOf(n0inv)).add(BigInteger.ONE).mod(BigInteger.TWO.pow(32)))
        .isEqualTo(BigInteger.ZERO);
  }

  @Test
  void refusesBlobsOfTheWrongShape() throws Exception {
    byte[] blob = AvbPublicKey.readBlob(AvbTestKeys.copy("testkey_rsa2048.pem", dir));
    assertThatThrownBy(() -> AvbPublicKey.decode(java.util.Arrays.copyOf(blob, 519)))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("AVB RSA public key: 519 bytes for 2048 bits (expected: 520)");
    byte[] odd = blob.clone();
    ByteBuffer.wrap(odd).putInt(0, 3072);
    assertThatThrownBy(() -> AvbPublicKey.decode(odd))
        .isInstanceOf(AvbFormatException.class)
        .hasMessage("AVB RSA public key key_num_bits: 3072 (expected: 2048, 4096 or 8192)");
    assertThatThrownBy(() -> AvbPublicKey.decode(new byte[3]))
        .isInstanceOf(AvbFormatException.class);
    Path junk = Files.writeString(dir.resolve("junk"), "not a key");
    assertThatThrownBy(() -> AvbPublicKey.readBlob(junk))
        .isInstanceOf(AvbFormatException.class)
        .hasMessageStartingWith(junk + ": neither a PEM key nor an AVB public-key blob");
  }

  @Test
  void refusesRsaKeysAvbCannotCarry() throws Exception {
    Openssl.in(dir)
        .check(
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:3072",
            "-out",
            "k3072.pem");
    assertThatThrownBy(() -> AvbPublicKey.readBlob(dir.resolve("k3072.pem")))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("3072 bits (expected: 2048, 4096 or 8192)");
    Openssl.in(dir)
        .check(
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-pkeyopt",
            "rsa_keygen_pubexp:3",
            "-out",
            "e3.pem");
    assertThatThrownBy(() -> AvbPublicKey.readBlob(dir.resolve("e3.pem")))
        .hasMessageContaining("RSA public exponent: 3 (expected: 65537");
  }

  static PublicKey publicOf(RSAPrivateCrtKey key) throws Exception {
    return java.security.KeyFactory.getInstance("RSA")
        .generatePublic(
            new java.security.spec.RSAPublicKeySpec(key.getModulus(), key.getPublicExponent()));
  }
}
