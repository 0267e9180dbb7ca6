package org.jverity.avb.verify;

import java.io.IOException;
import java.security.MessageDigest;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.hashtree.AvbHashtree;
import org.jverity.avb.hashtree.AvbTreeReport;
import org.jverity.io.BlockDevice;

/**
 * One hashtree descriptor checked against the partition's file, as {@code verify_image} should: the
 * descriptor's numbers against the file, every data and hash block against the root (what FEC could
 * repair said when something is corrupt), then the FEC re-encoded and compared. A tree {@code
 * zero_hashtree} zeroed (or never written, {@code --no_hashtree}) is refused unless accepted, and
 * even then the data must hash to the root, as avbtool checks. Stateless.
 */
final class HashtreeVerification {
  private HashtreeVerification() {}

  /**
   * @param holder names the vbmeta image that holds the descriptor
   * @return avbtool's line for what was verified (or skipped, for an accepted zeroed tree)
   * @throws AvbVerificationException the first reason a device would refuse the partition
   */
  static String verify(
      String holder,
      PartitionFile target,
      HashtreeDescriptor d,
      boolean acceptZeroed,
      int threads,
      VerifyProgress progress)
      throws IOException {
    String name = d.partitionName();
    String where = name + ": hashtree descriptor in " + holder;
    CheckedHashtree checked = CheckedHashtree.check(where, d, target.metadataStart());
    BlockDevice device = target.device();
    boolean zeroed =
        !checked.treePresent()
            || (checked.geometry().treeSize() > 0 && AvbHashtree.isZeroed(device, d.treeOffset()));
    if (zeroed) {
      requireRootOfData(name, target, checked, threads, progress);
      if (!acceptZeroed) {
        throw new AvbVerificationException(
            name
                + ": hashtree of "
                + target.display()
                + " is zeroed or absent (zero_hashtree, --no_hashtree): a device cannot verify"
                + " its data (--accept_zeroed_hashtree skips it)");
      }
      return name
          + ": skipping verification since hashtree is zeroed and --accept_zeroed_hashtree"
          + " was given";
    }
    AvbTreeReport report;
    try (VerifyProgress.Step step =
        progress.begin(name + " hashtree", AvbHashtree.workBytes(checked.geometry()))) {
      report =
          AvbHashtree.check(
              device, checked.geometry(), d.treeOffset(), d.salt(), d.rootDigest(), threads, step);
    }
    if (!report.treeOk()) {
      throw new AvbVerificationException(
          name
              + ": "
              + d.hashAlgorithm()
              + " hashtree of "
              + target.display()
              + " does not verify: "
              + report.firstProblem()
              + "; "
              + counts(report));
    }
    if (!report.ok()) { // the tree verifies, the FEC is stale
      throw new AvbVerificationException(
          name
              + ": "
              + target.display()
              + ": "
              + report.firstProblem()
              + ": a device could not repair corruption with it");
    }
    return name
        + ": Successfully verified "
        + d.hashAlgorithm()
        + " hashtree of "
        + target.display()
        + " for image of "
        + d.imageSize()
        + " bytes";
  }

  /**
   * With no tree on the image to check, the data still must hash to the descriptor's root, as
   * avbtool checks before it skips the tree (the tree is built aside, in a scratch file).
   */
  private static void requireRootOfData(
      String name,
      PartitionFile target,
      CheckedHashtree checked,
      int threads,
      VerifyProgress progress)
      throws IOException {
    HashtreeDescriptor d = checked.descriptor();
    byte[] root;
    try (VerifyProgress.Step step =
        progress.begin(name + " data", AvbHashtree.rootWorkBytes(checked.geometry()))) {
      root = AvbHashtree.rootDigest(target.device(), checked.geometry(), d.salt(), threads, step);
    }
    if (!MessageDigest.isEqual(root, d.rootDigest())) {
      throw new AvbVerificationException(
          name
              + ": hashtree of "
              + target.display()
              + " does not match descriptor (the data hashes to another root)");
    }
  }

  private static String counts(AvbTreeReport r) {
    return r.corruptDataBlocks()
        + " data and "
        + r.corruptHashBlocks()
        + " hash blocks corrupt, "
        + (r.repairable()
            ? "all repairable by FEC"
            : r.unrepairableBlocks()
                + " not repairable"
                + (r.repairableBlocks() > 0
                    ? ", " + r.repairableBlocks() + " repairable by FEC"
                    : ""));
  }
}
