package org.jverity.sig;

import java.io.IOException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Collection;
import org.jverity.fsverity.FsVerityDescriptor;
import org.jverity.fsverity.VerifiedFile;
import org.jverity.hash.HashAlgorithm;
import org.jverity.verify.ReaderOptions;

/**
 * A file's fs-verity digest trusted because a built-in signature signs it, as the kernel trusts a
 * verity file with {@code fs.verity.require_signatures}: the signature is detached and names no
 * digest, so the digest is first computed from the file and its tree ({@link
 * VerifiedFile#describe}), then the signature is checked over it, and only then is the file read
 * with that digest. Stateless and thread-safe.
 *
 * <pre>{@code
 * try (VerifiedFile f = SignedFileDigest.open(file, tree, Files.readAllBytes(sig),
 *     Pem.readCertificates(cert), HashAlgorithm.SHA256, VerifiedFile.Parameters.DEFAULTS, ReaderOptions.DEFAULTS)) {
 *   f.read(0, buf, 0, n);                          // verified bytes of the file the signature names
 * } catch (InvalidSignatureException e) { ... }     // nothing was read
 * }</pre>
 */
public final class SignedFileDigest {
  private SignedFileDigest() {}

  /**
   * The digest of {@code claimed}, {@code alg:hex} as {@link VerifiedFile#open} takes it, once
   * {@code signature} is found to sign it with the key of one of the {@code trusted} certificates
   * (and the tree's hash as digest algorithm, as {@code fsverity sign} makes it).
   *
   * @param claimed what a file and its tree give ({@link VerifiedFile#describe}), untrusted until
   *     now
   * @throws InvalidSignatureException when the signature does not sign that digest, saying why in
   *     one line
   */
  public static String check(
      byte[] signature, FsVerityDescriptor claimed, Collection<X509Certificate> trusted)
      throws InvalidSignatureException {
    FsVeritySignature.verify(signature, claimed.digest(), claimed.params().algorithm(), trusted);
    return claimed.formattedDigest();
  }

  /**
   * Opens {@code file} with its tree {@code merkleTree} when {@code signature} signs the fs-verity
   * digest they give; see {@link VerifiedFile#open(Path, Path, String, VerifiedFile.Parameters,
   * ReaderOptions)} for everything else. The files are read twice: once to compute the digest the
   * signature is checked over, then by {@code open}, which computes it again and refuses a file or
   * tree that changed in between ({@link org.jverity.fsverity.FileDigestMismatchException}).
   *
   * @param alg the tree's hash, sha256 or sha512; also the signature's digest algorithm
   * @throws InvalidSignatureException when the signature does not sign the digest file and tree
   *     give (another file, a damaged top tree block, an untrusted or forged signature); nothing
   *     was read then
   */
  public static VerifiedFile open(
      Path file,
      Path merkleTree,
      byte[] signature,
      Collection<X509Certificate> trusted,
      HashAlgorithm alg,
      VerifiedFile.Parameters params,
      ReaderOptions options)
      throws IOException, InvalidSignatureException {
    String digest = check(signature, VerifiedFile.describe(file, merkleTree, alg, params), trusted);
    return VerifiedFile.open(file, merkleTree, digest, params, options);
  }
}
