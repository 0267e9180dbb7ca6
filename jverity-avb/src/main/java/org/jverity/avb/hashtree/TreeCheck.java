package org.jverity.avb.hashtree;

import java.io.IOException;
import java.security.MessageDigest;
import org.jverity.fec.FecEncoder;
import org.jverity.fec.FecLayout;
import org.jverity.fec.FecRecovery;
import org.jverity.fec.FecRepairer;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.io.BlockDevice;
import org.jverity.tree.Area;
import org.jverity.tree.CheckReport;
import org.jverity.tree.Corruption;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.ProgressListener;
import org.jverity.tree.TreeChecker;

/**
 * {@link AvbHashtree#check}: the core's full tree check, then FEC's view of what it found (the
 * core's recovery, as {@code jverity verify --fec-device} runs it) or, when nothing is corrupt, the
 * parity recomputed and compared. Writes nothing.
 */
final class TreeCheck {
  private TreeCheck() {}

  static AvbTreeReport run(
      BlockDevice image,
      AvbTreeGeometry geometry,
      long treeOffset,
      byte[] salt,
      byte[] root,
      int threads,
      ProgressListener progress)
      throws IOException {
    if (geometry.imageSize() == 0) {
      boolean matches = MessageDigest.isEqual(geometry.emptyRoot(salt), root);
      return new AvbTreeReport(
          matches, 0, 0, 0, 0, matches ? "" : "empty image: the root digest is not H(salt)");
    }
    VerityParams p = geometry.verityParams(salt, treeOffset);
    TreeChecker checker = TreeChecker.of(p).withProgress(progress);
    if (threads > 0) {
      checker = checker.withThreads(threads);
    }
    MerkleLayout layout = checker.layout();
    CheckReport r = checker.check(image, image, root);
    if (r.ok()) {
      return geometry.fecRoots() == 0
          ? new AvbTreeReport(true, 0, 0, 0, 0, "")
          : checkParity(image, geometry, treeOffset, threads, progress);
    }
    long corruptData = r.dataCorruptionCount() + r.uncheckedDataBlocks();
    long corruptHash = r.corruptionCount() - r.dataCorruptionCount();
    String first;
    if (!r.corruptions().isEmpty()) {
      first = r.corruptions().getFirst().describe() + " is corrupted";
    } else if (layout.levels() == 0) {
      corruptData = 1; // one block and no tree: the block or the root digest is wrong
      first = "data block 0 does not hash to the root digest (the image is one block: no tree)";
    } else {
      first =
          "root digest mismatch: the tree hashes to "
              + Hex.format(r.computedRoot())
              + " (expected: "
              + Hex.format(root)
              + ")";
    }
    if (geometry.fecRoots() == 0 || !fecMayHelp(r, layout)) {
      return new AvbTreeReport(
          r.rootMatches(),
          corruptData,
          corruptHash,
          0,
          Math.max(1, corruptData + corruptHash),
          first + (geometry.fecRoots() == 0 ? "" : "; FEC cannot repair it"));
    }
    FecRecovery recovery =
        new FecRecovery(p, new FecRepairer(geometry.fecLayout(treeOffset), image, image, image));
    for (Corruption c : r.corruptions()) {
      recovery.knownBad(c.area(), c.block());
    }
    FecRecovery.Result fixed = recovery.run(image, image, root, Corruption.MAX_REPORTED);
    long repairable = fixed.fixes().size();
    long unrepairable = fixed.uncorrectableCount();
    String verdict;
    if (!fixed.uncorrectable().isEmpty()) {
      verdict =
          "; FEC cannot repair "
              + unrepairable
              + " data block"
              + (unrepairable == 1 ? "" : "s")
              + ", the first "
              + fixed.uncorrectable().getFirst().dataBlock();
    } else {
      verdict = "; FEC can repair " + (repairable == 1 ? "it" : "all " + repairable + " blocks");
    }
    return new AvbTreeReport(
        r.rootMatches(), corruptData, corruptHash, repairable, unrepairable, first + verdict);
  }

  /**
   * Recomputes the FEC parity of an image whose tree verifies and compares it with the parity
   * stored, writing nothing: a stale or zeroed FEC area would repair nothing on a device.
   */
  private static AvbTreeReport checkParity(
      BlockDevice image,
      AvbTreeGeometry geometry,
      long treeOffset,
      int threads,
      ProgressListener progress)
      throws IOException {
    FecLayout layout = geometry.fecLayout(treeOffset);
    FecEncoder encoder = FecEncoder.of(layout).withProgress(progress);
    if (threads > 0) {
      encoder = encoder.withThreads(threads);
    }
    ParityComparison parity =
        new ParityComparison(image, geometry.fecOffset(), geometry.blockSize());
    encoder.encode(image, image, parity);
    long stale = parity.mismatchedBlocks();
    String problem =
        stale == 0
            ? ""
            : "FEC parity: "
                + stale
                + " of "
                + layout.parityBlocks()
                + " blocks do not match the data and tree, the first at byte "
                + parity.firstMismatch()
                + " (stale or zeroed FEC: it would repair nothing)";
    return new AvbTreeReport(true, 0, 0, 0, 0, problem, stale);
  }

  /**
   * Whether FEC may make the image verify: not when the root digest is wrong while the tree agrees
   * with its top block (no correction below the top can help); a one-block image has no tree to
   * tell, so FEC is tried.
   */
  private static boolean fecMayHelp(CheckReport r, MerkleLayout layout) {
    if (r.nothingMatches()) {
      return false;
    }
    int top = layout.levels() - 1;
    return r.rootMatches()
        || top < 0
        || r.corruptions().stream().anyMatch(c -> c.area() == Area.HASH && c.level() == top);
  }
}
