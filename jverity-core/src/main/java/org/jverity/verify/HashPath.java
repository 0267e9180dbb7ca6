package org.jverity.verify;

import java.io.IOException;
import org.jverity.io.BlockDevice;
import org.jverity.tree.Area;
import org.jverity.tree.MerkleLayout;

/**
 * The walk dm-verity makes for each data block ({@code verity_verify_level}): climb from level 0
 * until a cached, already-verified hash block (or the root) is found, then descend, verifying and
 * marking each hash block. A hash block is marked verified only when it also has the format's
 * padding ({@link MerkleLayout#hasZeroPadding}), as {@code veritysetup verify} requires. A block
 * that does not match goes to {@link Mismatches}, except inline, where the walk stops. Thread-safe;
 * the per-request state is the {@link HashWork}'s.
 */
final class HashPath {
  private final MerkleLayout layout;
  private final BlockDevice hash;
  private final CacheSpace space;
  private final byte[] rootHash;
  private final Mismatches mismatches;

  HashPath(
      MerkleLayout layout,
      BlockDevice hash,
      CacheSpace space,
      byte[] rootHash,
      Mismatches mismatches) {
    this.layout = layout;
    this.hash = hash;
    this.space = space;
    this.rootHash = rootHash;
    this.mismatches = mismatches;
  }

  /**
   * The level-0 hash block covering data block {@code block}, verified: climbs to the lowest
   * verified block on the path (or the root), then verifies and marks the blocks below it. Inline,
   * null when a block on the path is not cached or does not match (those verified so far stay
   * marked). {@code readerClosed}: whether the reader was closed (a load failing then is no
   * corruption).
   *
   * <p>With the data block at hand ({@code data[dataOff...]}, null when not), a level-0 hash block
   * that must be verified is hashed together with it, two SHA-256 streams where they run (the
   * kernel pairs them the same way): the data block's digest is left in {@code w.digests[0...]} and
   * {@code w.hashedWithPath} says which block it is.
   */
  HashBlock level0(
      long block, HashWork w, boolean inline, boolean readerClosed, byte[] data, int dataOff)
      throws IOException {
    w.hashedWithPath = -1;
    int levels = layout.levels();
    HashBlock[] path = w.path; // entries above this walk's top are stale and never read
    int top = levels; // the lowest level whose path block is verified; levels = none (the root)
    for (int i = 0; i < levels; i++) {
      HashBlock hb = space.get(layout.hashBlockOnPath(i, block));
      path[i] = hb;
      if (hb != null && hb.verified()) {
        top = i;
        break;
      }
    }
    for (int i = top - 1; i >= 0; i--) {
      HashBlock hb = path[i];
      if (hb == null) {
        if (inline) {
          return null;
        }
        long index = layout.hashBlockOnPath(i, block);
        try {
          hb = path[i] = space.load(index, hash);
        } catch (IOException e) {
          throw mismatches.deviceError(e, readerClosed, hash, Area.HASH, index, i, block);
        }
      }
      if (!hb.verified()) {
        byte[] want = i == levels - 1 ? rootHash : path[i + 1].bytes;
        int at = i == levels - 1 ? 0 : layout.offsetOnPath(i + 1, block);
        boolean verifies;
        if (i == 0 && data != null && hb.bytes.length == layout.dataBlockSize()) {
          w.hasher.hashTwo(
              hb.bytes, 0, data, dataOff, hb.bytes.length, w.digests, w.digest.length, 0);
          System.arraycopy(w.digests, w.digest.length, w.digest, 0, w.digest.length);
          w.hashedWithPath = block;
          verifies = mismatches.hashBlockMatches(hb.bytes, i, hb.index, w.digest, want, at);
        } else {
          verifies =
              mismatches.hashBlockVerifies(hb.bytes, i, hb.index, want, at, w.hasher, w.digest);
        }
        if (verifies) {
          hb.markVerified();
        } else if (inline) {
          return null;
        } else {
          path[i] = mismatches.hash(hb, i, want, at, w, block);
        }
      }
    }
    return path[0]; // the path is cleared when the request gives its HashWork back
  }
}
