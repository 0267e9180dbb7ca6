package org.jverity.avb.verify;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import org.jverity.avb.AvbPublicKey;

/**
 * What is trusted for a top-level vbmeta: one public-key blob (AVB's format, compared byte for byte
 * with the key the vbmeta embeds, as {@code validate_vbmeta_public_key} compares it on a device),
 * and whether an unsigned vbmeta (algorithm NONE) is accepted, which only an unlocked device does
 * and only when asked for explicitly ({@code --avb-key none}).
 *
 * @param publicKeyBlob the trusted key's blob; empty when only an unsigned image is accepted
 * @param acceptUnsigned whether a vbmeta with algorithm NONE passes
 */
public record AvbTrust(byte[] publicKeyBlob, boolean acceptUnsigned) {
  /** What {@code --avb-key} takes for "the image is unsigned, and that is known". */
  public static final String NONE = "none";

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

  /**
   * {@code --avb-key KEY}: {@code none} is {@link #unsigned()}; anything else is a key file as
   * {@link AvbPublicKey#readBlob} takes it (PEM public or private key, or the raw blob).
   */
  public static AvbTrust parse(String spec) throws IOException {
    Objects.requireNonNull(spec, "spec");
    if (spec.equals(NONE)) {
      return unsigned();
    }
    byte[] blob = AvbPublicKey.readBlob(Path.of(spec));
    if (blob.length == 0) {
      throw new IOException("--avb-key " + spec + ": empty (expected: a public key, or none)");
    }
    return key(blob);
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
