package org.jverity.avb.verify;

import java.util.Arrays;
import java.util.Objects;
import org.jverity.avb.AvbPublicKey;

/**
 * What is trusted for a top-level vbmeta: one public-key blob (AVB's format, compared byte for byte
 * with the key the vbmeta embeds, as {@code validate_vbmeta_public_key} compares it on a device),
 * and whether an unsigned vbmeta (algorithm NONE) is accepted, which only an unlocked device does
 * and only when asked for explicitly (the command line's {@code --avb-key none}).
 *
 * @param publicKeyBlob the trusted key's blob; empty when only an unsigned image is accepted
 * @param acceptUnsigned whether a vbmeta with algorithm NONE passes
 */
public record AvbTrust(byte[] publicKeyBlob, boolean acceptUnsigned) {
  public AvbTrust {
    Objects.requireNonNull(publicKeyBlob, "publicKeyBlob");
    if (publicKeyBlob.length == 0 && !acceptUnsigned) {
      throw new IllegalArgumentException(
          "trust: no key and unsigned images refused (trusts nothing)");
    }
    publicKeyBlob = publicKeyBlob.clone();
  }

  /** Trusts the vbmeta signed by this key (its AVB public-key blob) and nothing else. */
  public static AvbTrust key(byte[] blob) {
    if (blob.length == 0) {
      throw new IllegalArgumentException(
          "trusted key: an empty blob (expected: an AVB public key)");
    }
    return new AvbTrust(blob, false);
  }

  /** Accepts an unsigned vbmeta, and no signed one: there is no key to check it against. */
  public static AvbTrust unsigned() {
    return new AvbTrust(new byte[0], true);
  }

  /** Whether a key is trusted (else only unsigned images pass). */
  public boolean hasKey() {
    return publicKeyBlob.length > 0;
  }

  /** Whether {@code blob}, a vbmeta's embedded key, is exactly the trusted one. */
  public boolean trusts(byte[] blob) {
    return hasKey() && Arrays.equals(publicKeyBlob, blob);
  }

  @Override
  public byte[] publicKeyBlob() {
    return publicKeyBlob.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AvbTrust t
        && acceptUnsigned == t.acceptUnsigned
        && Arrays.equals(publicKeyBlob, t.publicKeyBlob);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(publicKeyBlob) * 31 + Boolean.hashCode(acceptUnsigned);
  }

  @Override
  public String toString() {
    return hasKey()
        ? "AvbTrust[key sha1 "
            + AvbPublicKey.sha1(publicKeyBlob)
            + (acceptUnsigned ? ", or unsigned]" : "]")
        : "AvbTrust[unsigned]";
  }
}
