package org.jverity.sig;

import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.List;
import org.jverity.format.Hex;
import org.jverity.image.RootCheck;

/**
 * The root hash must be signed (detached PKCS#7 over its lower-case hex, as the kernel's {@code
 * root_hash_sig_key_desc} checks) by a trusted certificate: the {@link RootCheck} that {@code
 * dm-verity-verify-sig.c} is. The signature and certificates are loaded when the check runs, after
 * the root hash is known, so a caller's errors come in the order it reads its inputs.
 */
public final class RootHashSignatureCheck implements RootCheck {
  /** Loads one input of the check. */
  @FunctionalInterface
  public interface Loader<T> {
    T load() throws IOException;
  }

  private final Loader<byte[]> signature;
  private final Loader<List<X509Certificate>> trusted;

  public RootHashSignatureCheck(Loader<byte[]> signature, Loader<List<X509Certificate>> trusted) {
    this.signature = signature;
    this.trusted = trusted;
  }

  /** A check of a signature and certificates already in memory. */
  public static RootHashSignatureCheck of(byte[] signature, List<X509Certificate> trusted) {
    byte[] copy = signature.clone();
    List<X509Certificate> certificates = List.copyOf(trusted);
    return new RootHashSignatureCheck(() -> copy, () -> certificates);
  }

  /**
   * @throws InvalidSignatureException when it is not a trusted certificate's signature of {@code
   *     rootHash}
   */
  @Override
  public void check(byte[] rootHash) throws IOException, InvalidSignatureException {
    byte[] sig = signature.load();
    RootHashSignature.verify(sig, Hex.format(rootHash), trusted.load());
  }
}
