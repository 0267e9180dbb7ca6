/**
 * Signatures: the PKCS#7 signature of an fs-verity file digest (as {@code fsverity sign} makes it)
 * and of a dm-verity root hash (as the kernel's {@code root_hash_sig_key_desc} checks it), and PEM
 * keys and certificates. Depends on the core and BouncyCastle, so that the core depends on nothing.
 */
module org.jverity.sig {
  requires transitive org.jverity.core; // HashAlgorithm in the API
  requires org.bouncycastle.pkix; // CMSSignedData, PEMParser
  requires org.bouncycastle.util; // asn1.cms
  requires org.bouncycastle.provider; // asn1, asn1.pkcs

  exports org.jverity.sig;
}
