package org.jverity.sig;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.ASN1Integer;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.DERNull;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.DERSequence;
import org.bouncycastle.asn1.DERSet;
import org.bouncycastle.asn1.DERTaggedObject;
import org.bouncycastle.asn1.cms.IssuerAndSerialNumber;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.oiw.OIWObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cms.CMSException;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.util.encoders.Hex;
import org.jverity.hash.HashAlgorithm;

/**
 * Detached PKCS#7 SignedData as OpenSSL's {@code PKCS7_sign} writes it with {@code
 * PKCS7_BINARY|PKCS7_DETACHED|PKCS7_NOATTR|PKCS7_NOCERTS} (what {@code fsverity sign} and {@code
 * openssl smime -sign -nocerts -noattr -binary} make), and its verification. Stateless.
 *
 * <pre>
 * ContentInfo { signedData, [0] SignedData {
 *   version 1, digestAlgorithms { {H, NULL} }, contentInfo { data }      -- detached: no content
 *   signerInfos { { version 1, issuerAndSerialNumber, {H, NULL},          -- no authenticated attributes
 *                   {rsaEncryption, NULL} | {ecdsa-with-H}, OCTET STRING signature } } } }
 * </pre>
 */
final class Pkcs7 {
  private Pkcs7() {}

  /** Signs {@code content} with {@code key}, naming {@code cert} (issuer and serial) as signer. */
  static byte[] signDetached(
      byte[] content, HashAlgorithm alg, PrivateKey key, X509Certificate cert)
      throws GeneralSecurityException {
    return signDetached(content, alg, key, cert, false);
  }

  /**
   * As {@link #signDetached(byte[], HashAlgorithm, PrivateKey, X509Certificate)}, with the signer's
   * certificate in the SignedData when {@code withCertificate} (as {@code openssl smime -sign}
   * without {@code -nocerts} and systemd-repart write it).
   */
  static byte[] signDetached(
      byte[] content,
      HashAlgorithm alg,
      PrivateKey key,
      X509Certificate cert,
      boolean withCertificate)
      throws GeneralSecurityException {
    if (!key.getAlgorithm().equals(cert.getPublicKey().getAlgorithm())) {
      throw new InvalidKeyException(
          article(key.getAlgorithm())
              + " key, but the certificate holds "
              + article(cert.getPublicKey().getAlgorithm())
              + " key (expected: the certificate's key)");
    }
    Signature s = Signature.getInstance(jcaName(alg, key.getAlgorithm()));
    s.initSign(key);
    s.update(content);
    return assemble(
        content,
        alg,
        cert,
        withCertificate,
        s.sign(),
        "the private key is not the certificate's"); // as OpenSSL's X509_check_private_key
  }

  /**
   * The SignedData of {@link #signDetached(byte[], HashAlgorithm, PrivateKey, X509Certificate,
   * boolean)} around a signature value made elsewhere (a signing helper, an HSM): PKCS#1 v1.5 (RSA)
   * or DER ECDSA of {@code content} hashed with {@code alg}, checked here with the certificate's
   * key before it is used.
   *
   * @param mismatch what a signature the certificate's key does not verify means, for the message
   */
  static byte[] assemble(
      byte[] content,
      HashAlgorithm alg,
      X509Certificate cert,
      boolean withCertificate,
      byte[] signature,
      String mismatch)
      throws GeneralSecurityException {
    String keyAlgorithm = cert.getPublicKey().getAlgorithm();
    String jca = jcaName(alg, keyAlgorithm);
    AlgorithmIdentifier sigAlg =
        keyAlgorithm.equals("RSA") // OpenSSL: rsaEncryption with NULL parameters
            ? new AlgorithmIdentifier(PKCSObjectIdentifiers.rsaEncryption, DERNull.INSTANCE)
            : new AlgorithmIdentifier(ecdsaWith(alg)); // ecdsa-with-SHAxxx, parameters absent
    Signature check = Signature.getInstance(jca);
    check.initVerify(cert.getPublicKey());
    check.update(content);
    boolean verifies;
    try {
      verifies = check.verify(signature);
    } catch (SignatureException e) { // not even a signature's encoding
      verifies = false;
    }
    if (!verifies) {
      throw new InvalidKeyException(
          mismatch + " (" + cert.getSubjectX500Principal().getName() + ")");
    }

    AlgorithmIdentifier digestAlg = new AlgorithmIdentifier(digestOid(alg), DERNull.INSTANCE);
    IssuerAndSerialNumber signer;
    try {
      signer =
          new IssuerAndSerialNumber(new X509CertificateHolder(cert.getEncoded()).toASN1Structure());
    } catch (IOException e) {
      throw new CertificateEncodingException("certificate: " + e.getMessage(), e);
    }
    DERSequence signerInfo =
        new DERSequence(
            new ASN1Encodable[] {
              new ASN1Integer(1), signer, digestAlg, sigAlg, new DEROctetString(signature)
            });
    List<ASN1Encodable> fields = new ArrayList<>();
    fields.add(new ASN1Integer(1));
    fields.add(new DERSet(digestAlg));
    fields.add(new DERSequence(PKCSObjectIdentifiers.data));
    if (withCertificate) { // certificates [0] IMPLICIT SET OF Certificate
      try {
        fields.add(
            new DERTaggedObject(
                false, 0, new DERSet(ASN1Primitive.fromByteArray(cert.getEncoded()))));
      } catch (IOException e) {
        throw new CertificateEncodingException("certificate: " + e.getMessage(), e);
      }
    }
    fields.add(new DERSet(signerInfo));
    DERSequence signedData = new DERSequence(fields.toArray(new ASN1Encodable[0]));
    DERSequence contentInfo =
        new DERSequence(
            new ASN1Encodable[] {
              PKCSObjectIdentifiers.signedData, new DERTaggedObject(true, 0, signedData)
            });
    try {
      return contentInfo.getEncoded(ASN1Encoding.DER);
    } catch (IOException e) {
      throw new IllegalStateException("DER encoding in memory", e); // no I/O happens
    }
  }

  /**
   * Checks a detached signature over {@code content}: one signer, a trusted certificate naming it,
   * the digest algorithm {@code requiredAlg} (any when null), and the signature itself. Signed
   * attributes, as {@code openssl cms -sign} adds without {@code -noattr}, are accepted (the
   * kernel's PKCS#7 parser accepts them too); certificates in the signature are ignored.
   *
   * @return the trusted certificate that made the signature
   */
  static X509Certificate verifyDetached(
      String what,
      byte[] signature,
      byte[] content,
      HashAlgorithm requiredAlg,
      Collection<X509Certificate> trusted)
      throws InvalidSignatureException {
    CMSSignedData cms;
    Collection<SignerInformation> signers;
    try {
      cms = new CMSSignedData(new CMSProcessableByteArray(content), signature);
      // BouncyCastle decodes the signer infos only when asked: malformed ones throw here, unchecked
      // (Pkcs7FuzzTest found an IllegalArgumentException from a SET where a SEQUENCE belongs).
      signers = cms.getSignerInfos().getSigners();
    } catch (CMSException
        | RuntimeException e) { // BouncyCastle reports some malformed DER unchecked
      throw new InvalidSignatureException(
          InvalidSignatureException.Reason.MALFORMED,
          what + ": not a DER PKCS#7 signature (" + malformed(signature) + ")",
          e);
    }
    if (cms.getSignedContent() == null
        || !cms.getSignedContentTypeOID().equals(PKCSObjectIdentifiers.data.getId())) {
      throw new InvalidSignatureException(
          InvalidSignatureException.Reason.MALFORMED,
          what
              + ": not a detached PKCS#7 signature of data (content type "
              + cms.getSignedContentTypeOID()
              + ")");
    }
    if (signers.size() != 1) {
      throw new InvalidSignatureException(
          InvalidSignatureException.Reason.MALFORMED,
          what + ": " + signers.size() + " signers (expected: 1)");
    }
    SignerInformation signer = signers.iterator().next();
    if (requiredAlg != null && !signer.getDigestAlgOID().equals(digestOid(requiredAlg).getId())) {
      throw new InvalidSignatureException(
          InvalidSignatureException.Reason.WRONG_DIGEST_ALGORITHM,
          what
              + ": signed with digest algorithm "
              + digestName(signer.getDigestAlgOID())
              + " (expected: "
              + requiredAlg
              + ")");
    }
    X509Certificate match = null;
    for (X509Certificate c : trusted) {
      try {
        if (signer.getSID().match(new X509CertificateHolder(c.getEncoded()))) {
          match = c;
          break;
        }
      } catch (IOException | CertificateEncodingException e) {
        // an unreadable trusted certificate matches nothing
      }
    }
    if (match == null) {
      throw new InvalidSignatureException(
          InvalidSignatureException.Reason.UNTRUSTED_SIGNER,
          what + ": signed by " + describe(signer) + ", which no trusted certificate is");
    }
    boolean ok;
    try {
      ok = signer.verify(new JcaSimpleSignerInfoVerifierBuilder().build(match));
    } catch (CMSException | OperatorCreationException | RuntimeException e) {
      throw new InvalidSignatureException(
          InvalidSignatureException.Reason.BAD_SIGNATURE,
          what + ": signature does not verify (" + oneLine(e) + ")",
          e);
    }
    if (!ok) {
      throw new InvalidSignatureException(
          InvalidSignatureException.Reason.BAD_SIGNATURE,
          what + ": signature does not verify with " + match.getSubjectX500Principal().getName());
    }
    return match;
  }

  /**
   * "SHA256withRSA", "SHA256withECDSA": what signs with {@code alg} and a key of this algorithm.
   */
  private static String jcaName(HashAlgorithm alg, String keyAlgorithm) throws InvalidKeyException {
    String hash = alg.jcaName().replace("-", ""); // SHA256
    return switch (keyAlgorithm) {
      case "RSA" -> hash + "withRSA"; // PKCS#1 v1.5 over the DigestInfo, as OpenSSL signs
      case "EC" -> hash + "withECDSA";
      default ->
          throw new InvalidKeyException(
              "key algorithm: " + keyAlgorithm + " (expected: RSA or EC)");
    };
  }

  private static String describe(SignerInformation s) {
    var sid = s.getSID();
    if (sid.getIssuer() != null) {
      String issuer;
      try {
        issuer = sid.getIssuer().toString();
      } catch (RuntimeException e) { // BouncyCastle decodes the name's strings only here, unchecked
        issuer = "unreadable (" + oneLine(e) + ")";
      }
      return "issuer '"
          + issuer
          + "' serial "
          + sid.getSerialNumber().toString(16).toUpperCase(Locale.ROOT);
    }
    return "key identifier " + Hex.toHexString(sid.getSubjectKeyIdentifier());
  }

  /**
   * What is wrong with a signature BouncyCastle cannot parse, in a user's words: its own message
   * ("IOException reading content.") names Java, not the file.
   */
  private static String malformed(byte[] signature) {
    if (signature.length == 0) {
      return "the file is empty";
    }
    if ((signature[0] & 0xff) != 0x30) {
      return String.format(
          "it does not start with a DER SEQUENCE: byte 0 is 0x%02x, not 0x30", signature[0] & 0xff);
    }
    return "its DER encoding is truncated or malformed";
  }

  /**
   * {@code name} with its indefinite article, as an acronym is read: "an EC", "an RSA", "a DSA".
   */
  static String article(String name) {
    boolean vowelSound = !name.isEmpty() && "AEFHILMNORSXaeiou".indexOf(name.charAt(0)) >= 0;
    return (vowelSound ? "an " : "a ") + name;
  }

  private static String oneLine(Throwable e) {
    Throwable c = e;
    while (c.getCause() != null && c.getMessage() == null) {
      c = c.getCause();
    }
    String m = c.getMessage() == null ? "the signature value is unusable" : c.getMessage();
    return m.strip().replaceAll("\\s*\\R\\s*", " ");
  }

  /** A digest PKCS#7 signatures here may use, with its OIDs. */
  private record SignatureDigest(
      HashAlgorithm algorithm, ASN1ObjectIdentifier oid, ASN1ObjectIdentifier ecdsaWith) {}

  /** The SHA-1 and SHA-2 digests: what the kernel's PKCS#7 parser and {@code fsverity sign} use. */
  private static final List<SignatureDigest> DIGESTS =
      List.of(
          new SignatureDigest(
              HashAlgorithm.SHA1, OIWObjectIdentifiers.idSHA1, X9ObjectIdentifiers.ecdsa_with_SHA1),
          new SignatureDigest(
              HashAlgorithm.SHA224,
              NISTObjectIdentifiers.id_sha224,
              X9ObjectIdentifiers.ecdsa_with_SHA224),
          new SignatureDigest(
              HashAlgorithm.SHA256,
              NISTObjectIdentifiers.id_sha256,
              X9ObjectIdentifiers.ecdsa_with_SHA256),
          new SignatureDigest(
              HashAlgorithm.SHA384,
              NISTObjectIdentifiers.id_sha384,
              X9ObjectIdentifiers.ecdsa_with_SHA384),
          new SignatureDigest(
              HashAlgorithm.SHA512,
              NISTObjectIdentifiers.id_sha512,
              X9ObjectIdentifiers.ecdsa_with_SHA512));

  static ASN1ObjectIdentifier digestOid(HashAlgorithm alg) {
    return signatureDigest(alg).oid();
  }

  private static String digestName(String oid) {
    for (SignatureDigest d : DIGESTS) {
      if (d.oid().getId().equals(oid)) {
        return d.algorithm().kernelName();
      }
    }
    return oid;
  }

  private static ASN1ObjectIdentifier ecdsaWith(HashAlgorithm alg) {
    return signatureDigest(alg).ecdsaWith();
  }

  private static SignatureDigest signatureDigest(HashAlgorithm alg) {
    for (SignatureDigest d : DIGESTS) {
      if (d.algorithm().sameDigest(alg)) {
        return d;
      }
    }
    throw new IllegalArgumentException(
        "signature digest algorithm: "
            + alg
            + " (expected: sha1, sha224, sha256, sha384 or sha512)");
  }
}
