package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.format.ImageIdentity;
import org.jverity.format.VerityParams;
import org.jverity.io.BlockDevice;

/**
 * What {@code verify} and {@code read} check the image against: the tree's parameters and its
 * root hash. Given a bare root hash, the parameters come from the superblock (or the options);
 * given an {@link ImageIdentity}, they come from the identity, and a superblock that disagrees is
 * refused, so a rewritten {@code data_blocks} cannot change what the image is (issue #9).
 *
 * @param params the tree's parameters
 * @param rootHash the trusted root hash
 * @param identity the identity of {@code params} and {@code rootHash}
 */
public record TrustedRoot(VerityParams params, byte[] rootHash, ImageIdentity identity) {

  /**
   * Resolves ROOT_HASH (or --root-hash-file) text, a hex root hash or an identity.
   *
   * @throws org.jverity.format.IdentityMismatchException when the superblock contradicts the
   *     identity
   */
  public static TrustedRoot resolve(VerityOptions o, Path data, BlockDevice hash, String rootText) throws IOException {
    if (ImageIdentity.isIdentity(rootText)) {
      ImageIdentity id = ImageIdentity.parse(rootText);
      return new TrustedRoot(ParamsResolver.forIdentity(o, hash, id), id.rootHash(), id);
    }
    VerityParams p = ParamsResolver.forCheck(o, data, hash);
    byte[] root = RootHashes.parse(rootText, p);
    return new TrustedRoot(p, root, ImageIdentity.of(p, root));
  }
}
