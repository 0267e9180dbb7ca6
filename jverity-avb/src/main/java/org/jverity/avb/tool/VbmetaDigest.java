package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import org.jverity.format.Hex;
import org.jverity.format.UnsupportedHashAlgorithmException;
import org.jverity.hash.HashAlgorithm;

/**
 * avbtool's {@code calculate_vbmeta_digest}: the digest of the vbmeta blobs of an image and of the
 * images it chains to, in order: what the bootloader passes as {@code androidboot.vbmeta.digest}.
 */
public record VbmetaDigest(Path image, String hashAlgorithm) {
  public static final String DEFAULT_HASH = "sha256";

  public VbmetaDigest {
    if (hashAlgorithm == null) {
      hashAlgorithm = DEFAULT_HASH;
    }
  }

  /** The digest, hex. */
  public String apply() throws IOException {
    HashAlgorithm alg =
        HashAlgorithm.lookup(hashAlgorithm)
            .orElseThrow(
                () ->
                    new UnsupportedHashAlgorithmException(
                        hashAlgorithm, "--hash_algorithm: " + hashAlgorithm + " (not supported)"));
    MessageDigest md = alg.newDigest();
    ParsedImage top = ParsedImage.read(image);
    md.update(top.vbmeta().encode());
    for (ParsedImage chained : ChainedImages.of(top)) {
      md.update(chained.vbmeta().encode());
    }
    return Hex.format(md.digest());
  }
}
