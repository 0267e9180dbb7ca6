package org.jverity.sig;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
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
    try (InputStream in = Files.newInputStream(file)) {
      List<X509Certificate> certs = new ArrayList<>();
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        certs.add((X509Certificate) c);
      }
      if (certs.isEmpty()) {
        throw new IOException(file + ": no certificate (expected: PEM 'BEGIN CERTIFICATE')");
      }
      return certs;
    } catch (CertificateException e) {
      throw new IOException(file + ": not a PEM certificate: " + e.getMessage(), e);
    }
  }

  /**
   * The first private key of a PEM file: PKCS#8 ("BEGIN PRIVATE KEY"), PKCS#1 ("BEGIN RSA PRIVATE
   * KEY") or SEC1 ("BEGIN EC PRIVATE KEY", possibly after an "EC PARAMETERS" block). Encrypted keys
   * are refused.
   *
   * @throws IOException naming the file, when it is missing, unreadable or holds no usable key
   */
  public static PrivateKey readPrivateKey(Path file) throws IOException {
    Object key = null;
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser pem = new PEMParser(r)) {
      for (Object o = pem.readObject(); o != null && key == null; o = pem.readObject()) {
        if (o instanceof PEMKeyPair
            || o instanceof PrivateKeyInfo
            || o instanceof PEMEncryptedKeyPair
            || o instanceof PKCS8EncryptedPrivateKeyInfo) {
          key = o;
        }
      }
    } catch (NoSuchFileException e) {
      throw e;
    } catch (IOException
        | RuntimeException e) { // BouncyCastle reports some malformed input unchecked
      throw new IOException(file + ": not a PEM private key: " + e.getMessage(), e);
    }
    try {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      return switch (key) {
        case PEMKeyPair pair -> converter.getPrivateKey(pair.getPrivateKeyInfo());
        case PrivateKeyInfo info -> converter.getPrivateKey(info);
        case null ->
            throw new IOException(
                file
                    + ": no private key (expected: PEM 'BEGIN PRIVATE KEY', "
                    + "'BEGIN RSA PRIVATE KEY' or 'BEGIN EC PRIVATE KEY')");
        default ->
            throw new IOException(
                file + ": the private key is encrypted (expected: an unencrypted key)");
      };
    } catch (PEMException e) {
      throw new IOException(file + ": unusable private key: " + e.getMessage(), e);
    }
  }

  /**
   * The first public key of a PEM file: X.509 SubjectPublicKeyInfo ("BEGIN PUBLIC KEY", as {@code
   * openssl pkey -pubout} writes it) or PKCS#1 ("BEGIN RSA PUBLIC KEY").
   *
   * @throws IOException naming the file, when it is missing, unreadable or holds no public key
   */
  public static PublicKey readPublicKey(Path file) throws IOException {
    SubjectPublicKeyInfo key = null;
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser pem = new PEMParser(r)) {
      for (Object o = pem.readObject(); o != null && key == null; o = pem.readObject()) {
        if (o instanceof SubjectPublicKeyInfo info) {
          key = info;
        }
      }
    } catch (NoSuchFileException e) {
      throw e;
    } catch (IOException
        | RuntimeException e) { // BouncyCastle reports some malformed input unchecked
      throw new IOException(file + ": not a PEM public key: " + e.getMessage(), e);
    }
    if (key == null) {
      throw new IOException(
          file + ": no public key (expected: PEM 'BEGIN PUBLIC KEY' or 'BEGIN RSA PUBLIC KEY')");
    }
    try {
      return new JcaPEMKeyConverter().getPublicKey(key);
    } catch (PEMException e) {
      throw new IOException(file + ": unusable public key: " + e.getMessage(), e);
    }
  }
}
