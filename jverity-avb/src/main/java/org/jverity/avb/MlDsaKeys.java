package org.jverity.avb;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * ML-DSA public keys between AVB's blob ({@code be32 key_num_bytes ‖ raw FIPS 204 key}) and the
 * JDK's X.509 encoding, which is the raw key behind a fixed SubjectPublicKeyInfo prefix per
 * parameter set (RFC 9881).
 */
final class MlDsaKeys {
  static final int RAW_65 = 1952, RAW_87 = 2592;

  // SEQUENCE { SEQUENCE { OID 2.16.840.1.101.3.4.3.18 | .19 }, BIT STRING (0 unused bits) ...
  private static final byte[] PREFIX_65 =
      HexFormat.of().parseHex("308207b2300b0609608648016503040312038207a100");
  private static final byte[] PREFIX_87 =
      HexFormat.of().parseHex("30820a32300b060960864801650304031303820a2100");

  private MlDsaKeys() {}

  static boolean isMlDsaBlob(byte[] blob) {
    int len = ByteBuffer.wrap(blob).getInt(0);
    return len == RAW_65 || len == RAW_87;
  }

  /** The algorithm whose key a blob of this length holds. */
  static AvbAlgorithm algorithmOf(byte[] blob) throws AvbFormatException {
    int len = blob.length >= 4 ? ByteBuffer.wrap(blob).getInt(0) : -1;
    AvbAlgorithm a =
        len == RAW_65 ? AvbAlgorithm.MLDSA65 : len == RAW_87 ? AvbAlgorithm.MLDSA87 : null;
    if (a == null || blob.length != 4 + len) {
      throw new AvbFormatException(
          "AVB ML-DSA public key: "
              + blob.length
              + " bytes declaring "
              + Integer.toUnsignedString(len)
              + " (expected: 4 + 1952 or 4 + 2592)");
    }
    return a;
  }

  static PublicKey decode(byte[] blob) throws AvbFormatException {
    AvbAlgorithm a = algorithmOf(blob);
    byte[] prefix = a == AvbAlgorithm.MLDSA65 ? PREFIX_65 : PREFIX_87;
    byte[] spki = Arrays.copyOf(prefix, prefix.length + blob.length - 4);
    System.arraycopy(blob, 4, spki, prefix.length, blob.length - 4);
    try {
      return KeyFactory.getInstance("ML-DSA").generatePublic(new X509EncodedKeySpec(spki));
    } catch (GeneralSecurityException e) {
      throw new AvbFormatException("AVB " + a + " public key: " + e.getMessage());
    }
  }

  static byte[] blob(PublicKey key) {
    byte[] spki = key.getEncoded();
    for (byte[] prefix : new byte[][] {PREFIX_65, PREFIX_87}) {
      if (spki != null
          && spki.length > prefix.length
          && Arrays.equals(spki, 0, prefix.length, prefix, 0, prefix.length)) {
        int raw = spki.length - prefix.length;
        if (raw == (prefix == PREFIX_65 ? RAW_65 : RAW_87)) {
          ByteBuffer b = ByteBuffer.allocate(4 + raw);
          b.putInt(raw).put(spki, prefix.length, raw);
          return b.array();
        }
      }
    }
    throw new IllegalArgumentException(
        "a "
            + key.getAlgorithm()
            + " public key (expected: RSA 2048/4096/8192 with exponent 65537, ML-DSA-65 or ML-DSA-87)");
  }
}
