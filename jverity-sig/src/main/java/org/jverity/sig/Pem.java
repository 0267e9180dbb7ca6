package org.jverity.sig;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Predicate;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.jcajce.interfaces.MLDSAPrivateKey;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMException;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * PEM private and public keys and certificates, as openssl writes them. Stateless and thread-safe.
 */
public final class Pem {
  private Pem() {}

  /**
   * Every certificate of a PEM (or DER) file, in order; at least one.
   *
   * @throws IOException naming the file, when it is missing, unreadable or holds no certificate
   */
  public static List<X509Certificate> readCertificates(Path file) throws IOException {
    byte[] bytes = KeyFiles.read(file, "a certificate");
    List<String> labels = KeyFiles.pemLabels(bytes);
    if (labels.isEmpty() ? !KeyFiles.isDer(bytes) : !labels.contains("CERTIFICATE")) {
      throw KeyFiles.notA(file, bytes, "a certificate", CERTIFICATE, null);
    }
    try (InputStream in = new ByteArrayInputStream(bytes)) {
      List<X509Certificate> certs = new ArrayList<>();
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        certs.add((X509Certificate) c);
      }
      if (certs.isEmpty()) {
        throw KeyFiles.notA(file, bytes, "a certificate", CERTIFICATE, null);
      }
      return certs;
    } catch (CertificateException e) {
      throw new IOException(
          file
              + ": not a certificate: "
              + KeyFiles.describe(bytes)
              + " that does not parse as X.509 ("
              + e.getMessage()
              + ")",
          e);
    }
  }

  private static final String CERTIFICATE = "PEM '-----BEGIN CERTIFICATE-----', or DER";

  private static final String PRIVATE_KEY =
      "PEM '-----BEGIN PRIVATE KEY-----', '-----BEGIN RSA PRIVATE KEY-----' or '-----BEGIN EC"
          + " PRIVATE KEY-----'";

  private static final String PUBLIC_KEY =
      "PEM '-----BEGIN PUBLIC KEY-----' or '-----BEGIN RSA PUBLIC KEY-----'";

  /**
   * The file as PEM text, once it is known to hold a block labelled as {@code accepted} says: else
   * one line naming what it holds instead (DER, binary, a certificate, nothing). Read as ISO
   * 8859-1, which decodes every byte (US-ASCII would fail on the first byte past 127: "Input length
   * = 1").
   */
  private static String pemText(
      Path file, String what, Predicate<String> accepted, String expected, String convertWith)
      throws IOException {
    byte[] bytes = KeyFiles.read(file, what);
    if (KeyFiles.pemLabels(bytes).stream().noneMatch(accepted)) {
      throw KeyFiles.notA(file, bytes, what, expected, convertWith);
    }
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  /**
   * The first private key of a PEM file: PKCS#8 ("BEGIN PRIVATE KEY"), PKCS#1 ("BEGIN RSA PRIVATE
   * KEY") or SEC1 ("BEGIN EC PRIVATE KEY", possibly after an "EC PARAMETERS" block). Encrypted keys
   * are refused.
   *
   * @throws IOException naming the file, when it is missing, unreadable or holds no usable key
   */
  public static PrivateKey readPrivateKey(Path file) throws IOException {
    Object key = readPrivateKeyObject(file);
    try {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      return switch (key) {
        case PEMKeyPair pair -> converter.getPrivateKey(pair.getPrivateKeyInfo());
        case PrivateKeyInfo info -> converter.getPrivateKey(info);
        default -> throw encrypted(file);
      };
    } catch (PEMException e) {
      throw new IOException(file + ": unusable private key: " + e.getMessage(), e);
    }
  }

  /**
   * The first private key of a PEM file with its public key, as JDK keys: an RSA key (PKCS#1 or
   * PKCS#8) with the public key of its modulus and exponent, an EC key pair (SEC1), or an
   * ML-DSA-44, -65 or -87 key (PKCS#8, in any of RFC 9881's seed, expanded or both forms, as
   * openssl 3.5 and BouncyCastle write them), whose public key BouncyCastle derives: the JDK can
   * neither derive it nor read a seed, so the private key is handed to the JDK in its expanded
   * form.
   *
   * @throws IOException naming the file, when it holds no usable key or the public key cannot be
   *     had
   */
  public static KeyPair readKeyPair(Path file) throws IOException {
    Object key = readPrivateKeyObject(file);
    try {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      return switch (key) {
        case PEMKeyPair pair -> converter.getKeyPair(pair);
        case PrivateKeyInfo info when MlDsa.isMlDsa(info.getPrivateKeyAlgorithm().getAlgorithm()) ->
            MlDsa.keyPair(info);
        case PrivateKeyInfo info -> {
          PrivateKey k = converter.getPrivateKey(info);
          if (!(k instanceof RSAPrivateCrtKey rsa)) {
            throw new IOException(
                file
                    + ": a PKCS#8 "
                    + k.getAlgorithm()
                    + " key without its public key (expected: RSA, ML-DSA, or a SEC1 EC key)");
          }
          yield new KeyPair(
              KeyFactory.getInstance("RSA")
                  .generatePublic(new RSAPublicKeySpec(rsa.getModulus(), rsa.getPublicExponent())),
              rsa);
        }
        default -> throw encrypted(file);
      };
    } catch (PEMException
        | GeneralSecurityException
        | RuntimeException e) { // BouncyCastle refuses some ML-DSA keys unchecked
      throw new IOException(file + ": unusable private key: " + e.getMessage(), e);
    }
  }

  private static IOException encrypted(Path file) {
    return new IOException(file + ": the private key is encrypted (expected: an unencrypted key)");
  }

  /** The first private key object of a PEM file, as BouncyCastle's parser gives it. */
  private static Object readPrivateKeyObject(Path file) throws IOException {
    String text =
        pemText(file, "a PEM private key", l -> l.endsWith("PRIVATE KEY"), PRIVATE_KEY, "pkey");
    Object key = null;
    try (PEMParser pem = new PEMParser(new StringReader(text))) {
      for (Object o = pem.readObject(); o != null && key == null; o = pem.readObject()) {
        if (o instanceof PEMKeyPair
            || o instanceof PrivateKeyInfo
            || o instanceof PEMEncryptedKeyPair
            || o instanceof PKCS8EncryptedPrivateKeyInfo) {
          key = o;
        }
      }
    } catch (IOException
        | RuntimeException e) { // BouncyCastle reports some malformed input unchecked
      throw new IOException(file + ": not a PEM private key: " + e.getMessage(), e);
    }
    if (key == null) {
      throw new IOException(file + ": no private key (expected: " + PRIVATE_KEY + ")");
    }
    return key;
  }

  /** ML-DSA keys between BouncyCastle (which reads every RFC 9881 form) and the JDK. */
  private static final class MlDsa {
    private static final String ARC = "2.16.840.1.101.3.4.3.";

    static boolean isMlDsa(ASN1ObjectIdentifier oid) {
      String id = oid.getId();
      return id.equals(ARC + "17") || id.equals(ARC + "18") || id.equals(ARC + "19");
    }

    static KeyPair keyPair(PrivateKeyInfo info) throws IOException, GeneralSecurityException {
      MLDSAPrivateKey bc =
          (MLDSAPrivateKey)
              KeyFactory.getInstance("ML-DSA", new BouncyCastleProvider())
                  .generatePrivate(new PKCS8EncodedKeySpec(info.getEncoded()));
      KeyFactory jdk = KeyFactory.getInstance("ML-DSA");
      // PKCS#8 { version 0, AlgorithmIdentifier { oid }, OCTET STRING { OCTET STRING expandedKey }
      // }
      byte[] pkcs8 =
          der(
              0x30,
              HexFormat.of().parseHex("020100"),
              der(0x30, info.getPrivateKeyAlgorithm().getAlgorithm().getEncoded()),
              der(0x04, der(0x04, bc.getPrivateData())));
      return new KeyPair(
          jdk.generatePublic(new X509EncodedKeySpec(bc.getPublicKey().getEncoded())),
          jdk.generatePrivate(new PKCS8EncodedKeySpec(pkcs8)));
    }

    /** A DER TLV of the concatenated parts (contents below 64 KiB). */
    private static byte[] der(int tag, byte[]... parts) {
      int length = 0;
      for (byte[] p : parts) {
        length += p.length;
      }
      byte[] header =
          length < 128
              ? new byte[] {(byte) tag, (byte) length}
              : length < 256
                  ? new byte[] {(byte) tag, (byte) 0x81, (byte) length}
                  : new byte[] {(byte) tag, (byte) 0x82, (byte) (length >> 8), (byte) length};
      byte[] out = new byte[header.length + length];
      System.arraycopy(header, 0, out, 0, header.length);
      int at = header.length;
      for (byte[] p : parts) {
        System.arraycopy(p, 0, out, at, p.length);
        at += p.length;
      }
      return out;
    }
  }

  /**
   * The first public key of a PEM file: X.509 SubjectPublicKeyInfo ("BEGIN PUBLIC KEY", as {@code
   * openssl pkey -pubout} writes it) or PKCS#1 ("BEGIN RSA PUBLIC KEY").
   *
   * @throws IOException naming the file, when it is missing, unreadable or holds no public key
   */
  public static PublicKey readPublicKey(Path file) throws IOException {
    String text =
        pemText(
            file,
            "a PEM public key",
            l -> l.equals("PUBLIC KEY") || l.equals("RSA PUBLIC KEY"),
            PUBLIC_KEY,
            "pkey -pubin");
    SubjectPublicKeyInfo key = null;
    try (PEMParser pem = new PEMParser(new StringReader(text))) {
      for (Object o = pem.readObject(); o != null && key == null; o = pem.readObject()) {
        if (o instanceof SubjectPublicKeyInfo info) {
          key = info;
        }
      }
    } catch (IOException
        | RuntimeException e) { // BouncyCastle reports some malformed input unchecked
      throw new IOException(file + ": not a PEM public key: " + e.getMessage(), e);
    }
    if (key == null) {
      throw new IOException(file + ": no public key (expected: " + PUBLIC_KEY + ")");
    }
    try {
      return new JcaPEMKeyConverter().getPublicKey(key);
    } catch (PEMException e) {
      throw new IOException(file + ": unusable public key: " + e.getMessage(), e);
    }
  }
}
