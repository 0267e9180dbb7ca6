package org.jverity.avb;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * The PKCS#1 v1.5 encoding an RSA vbmeta signature must open to ({@code 00 01 FF…FF 00 ‖ DigestInfo
 * ‖ H}): avbtool's {@code Algorithm.padding} followed by the hash.
 */
final class Pkcs1 {
  private static final byte[] SHA256_INFO =
      HexFormat.of().parseHex("3031300d060960864801650304020105000420");
  private static final byte[] SHA512_INFO =
      HexFormat.of().parseHex("3051300d060960864801650304020305000440");

  private Pkcs1() {}

  static byte[] encode(AvbAlgorithm algorithm, byte[] hash, int length) {
    byte[] info = algorithm.hashName().equals("sha256") ? SHA256_INFO : SHA512_INFO;
    byte[] em = new byte[length];
    int ff = length - 3 - info.length - hash.length;
    em[0] = 0;
    em[1] = 1;
    Arrays.fill(em, 2, 2 + ff, (byte) 0xff);
    em[2 + ff] = 0;
    System.arraycopy(info, 0, em, 3 + ff, info.length);
    System.arraycopy(hash, 0, em, 3 + ff + info.length, hash.length);
    return em;
  }
}
