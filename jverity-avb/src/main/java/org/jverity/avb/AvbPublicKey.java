package org.jverity.avb;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.RSAPublicKeySpec;
import java.util.Arrays;
import java.util.HexFormat;
import org.jverity.sig.KeyFiles;
import org.jverity.sig.Pem;

/**
 * The public-key blob a vbmeta's aux block and a chain descriptor carry ({@code avbtool
 * extract_public_key}).
 *
 * <ul>
 *   <li>RSA ({@code AvbRSAPublicKeyHeader}): {@code be32 key_num_bits ‖ be32 n0inv ‖ n ‖ rr}, where
 *       {@code n0inv = 2^32 − n⁻¹ mod 2^32} and {@code rr = (2^bits)² mod n}, both numbers
 *       big-endian in {@code bits/8} bytes; the exponent is always 65537 and is not stored.
 *   <li>ML-DSA ({@code AvbMLDSAPublicKeyHeader}): {@code be32 key_num_bytes (1952 | 2592) ‖} the
 *       raw FIPS 204 public key.
 * </ul>
 */
public final class AvbPublicKey {
  /** RSA's only exponent in AVB. */
  static final BigInteger EXPONENT = BigInteger.valueOf(65537);

  /** A key file larger than this is none of the formats (an 8192-bit PEM key is 6.4 KB). */
  private static final long MAX_KEY_FILE = 1 << 20;

  private AvbPublicKey() {}

  /**
   * The blob of an RSA (exponent 65537, 2048/4096/8192 bits) or ML-DSA-65/87 public key.
   *
   * @throws IllegalArgumentException for any other key
   */
  public static byte[] blob(PublicKey key) {
    return switch (key) {
      case RSAPublicKey rsa -> rsaBlob(rsa.getModulus(), rsa.getPublicExponent());
      default -> MlDsaKeys.blob(key);
    };
  }

  /** The blob of the public half of an RSA private key (a CRT key, as PEM files hold). */
  static byte[] blob(PrivateKey key) {
    if (key instanceof RSAPrivateCrtKey rsa) {
      return rsaBlob(rsa.getModulus(), rsa.getPublicExponent());
    }
    throw new IllegalArgumentException(
        "a " + key.getAlgorithm() + " private key (expected: an RSA key with its public exponent)");
  }

  static byte[] rsaBlob(BigInteger n, BigInteger e) {
    if (!EXPONENT.equals(e)) {
      throw new IllegalArgumentException(
          "RSA public exponent: " + e + " (expected: 65537, the only one AVB supports)");
    }
    // avbtool rounds the size up to a power of two (a 3072-bit key would claim 4096 bits), but
    // its rr = (2^bitLength)^2 mod n is then not libavb's R^2: only full-size keys verify.
    int bits = n.bitLength();
    if (bits != 2048 && bits != 4096 && bits != 8192) {
      throw new IllegalArgumentException(
          "RSA key: " + bits + " bits (expected: 2048, 4096 or 8192)");
    }
    if (!n.testBit(0)) {
      throw new IllegalArgumentException("RSA modulus: even (expected: an odd modulus)");
    }
    BigInteger b32 = BigInteger.ONE.shiftLeft(32);
    long n0inv = b32.subtract(n.modInverse(b32)).longValueExact();
    BigInteger r = BigInteger.ONE.shiftLeft(bits);
    BigInteger rr = r.multiply(r).mod(n);
    ByteBuffer b = ByteBuffer.allocate(8 + 2 * bits / 8);
    b.putInt(bits).putInt((int) n0inv).put(fixed(n, bits / 8)).put(fixed(rr, bits / 8));
    return b.array();
  }

  /** {@code v} big-endian in exactly {@code len} bytes (avbtool's encode_long). */
  static byte[] fixed(BigInteger v, int len) {
    byte[] raw = v.toByteArray();
    byte[] out = new byte[len];
    int copy = Math.min(raw.length, len);
    System.arraycopy(raw, raw.length - copy, out, len - copy, copy);
    return out;
  }

  /** The RSA key size a blob declares, after checking its length (libavb's avb_rsa checks). */
  static int rsaBits(byte[] blob) throws AvbFormatException {
    if (blob.length < 8) {
      throw new AvbFormatException(
          "AVB public key: " + blob.length + " bytes (expected: at least an 8-byte header)");
    }
    long bits = Integer.toUnsignedLong(ByteBuffer.wrap(blob).getInt(0));
    if (bits != 2048 && bits != 4096 && bits != 8192) {
      throw new AvbFormatException(
          "AVB RSA public key key_num_bits: " + bits + " (expected: 2048, 4096 or 8192)");
    }
    if (blob.length != 8 + 2 * bits / 8) {
      throw new AvbFormatException(
          "AVB RSA public key: "
              + blob.length
              + " bytes for "
              + bits
              + " bits (expected: "
              + (8 + 2 * bits / 8)
              + ")");
    }
    return (int) bits;
  }

  /** The RSA modulus of a checked blob. */
  static BigInteger modulus(byte[] blob, int bits) {
    return new BigInteger(1, Arrays.copyOfRange(blob, 8, 8 + bits / 8));
  }

  /** The key a blob holds: an RSA key (exponent 65537) or an ML-DSA key. */
  public static PublicKey decode(byte[] blob) throws AvbFormatException {
    if (blob.length >= 4 && MlDsaKeys.isMlDsaBlob(blob)) {
      return MlDsaKeys.decode(blob);
    }
    int bits = rsaBits(blob);
    try {
      return KeyFactory.getInstance("RSA")
          .generatePublic(new RSAPublicKeySpec(modulus(blob, bits), EXPONENT));
    } catch (GeneralSecurityException e) {
      throw new AvbFormatException("AVB RSA public key: " + e.getMessage());
    }
  }

  /**
   * A key file as {@code --key} / {@code --avb-key} take it, as its blob: a PEM private key (its
   * public half), a PEM public key, or the raw blob ({@code extract_public_key}'s output).
   */
  public static byte[] readBlob(Path file) throws IOException {
    long size = Files.size(file);
    if (size > MAX_KEY_FILE) {
      throw new IOException(
          file + ": " + size + " bytes (expected: a PEM key or an AVB public-key blob)");
    }
    byte[] bytes = Files.readAllBytes(file);
    if (isPem(bytes)) {
      String text = new String(bytes, StandardCharsets.US_ASCII);
      try {
        if (text.contains("PRIVATE KEY-----")) {
          return blob(Pem.readKeyPair(file).getPublic());
        }
        return blob(Pem.readPublicKey(file));
      } catch (IllegalArgumentException e) {
        throw new IOException(file + ": " + e.getMessage());
      }
    }
    if (bytes.length == 0 || KeyFiles.isDer(bytes)) { // a blob is neither: say what it is
      throw new AvbFormatException(
          KeyFiles.notA(
                  file,
                  bytes,
                  "a PEM key nor an AVB public-key blob",
                  "a PEM key, or the blob extract_public_key writes",
                  "pkey")
              .getMessage());
    }
    try {
      decode(bytes);
    } catch (AvbFormatException e) {
      throw new AvbFormatException(
          file + ": neither a PEM key nor an AVB public-key blob: " + e.getMessage());
    }
    return bytes;
  }

  /** A PEM private key (PKCS#1 as AOSP ships its keys, PKCS#8, ...), through jverity-sig's Pem. */
  public static PrivateKey readPrivateKey(Path file) throws IOException {
    return Pem.readPrivateKey(file);
  }

  /**
   * A PEM private key with its public key, as a signer needs both ({@link
   * AvbSigner#of(AvbAlgorithm, KeyPair)}): RSA, or ML-DSA-65/87 in any PKCS#8 form (seed, expanded
   * or both).
   */
  public static KeyPair readKeyPair(Path file) throws IOException {
    return Pem.readKeyPair(file);
  }

  /** The sha1 of a blob, hex: what info_image shows. */
  public static String sha1(byte[] blob) {
    return hex("SHA-1", blob);
  }

  /** The sha256 of a blob, hex: what avbroot and bootloaders show. */
  public static String sha256(byte[] blob) {
    return hex("SHA-256", blob);
  }

  private static String hex(String algorithm, byte[] blob) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(blob));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is missing from this JDK", e);
    }
  }

  private static boolean isPem(byte[] b) {
    String start = new String(b, 0, Math.min(b.length, 4096), StandardCharsets.ISO_8859_1);
    return start.contains("-----BEGIN ");
  }
}
