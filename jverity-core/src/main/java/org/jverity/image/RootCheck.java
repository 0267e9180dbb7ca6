package org.jverity.image;

import java.io.IOException;
import java.security.GeneralSecurityException;

/**
 * A check of the trusted root hash before any byte of the image is served, as the kernel's {@code
 * dm-verity-verify-sig.h} checks {@code root_hash_sig_key_desc}. {@link #NONE} is its no-op twin
 * (the header's stub when the option is not built in); jverity-sig implements the PKCS#7 one.
 */
@FunctionalInterface
public interface RootCheck {
  /** No check: the root hash is trusted as given. */
  RootCheck NONE = rootHash -> {};

  /**
   * @throws GeneralSecurityException when the root hash is not to be trusted
   */
  void check(byte[] rootHash) throws IOException, GeneralSecurityException;
}
