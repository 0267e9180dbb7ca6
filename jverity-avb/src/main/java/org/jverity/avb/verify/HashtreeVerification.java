package org.jverity.avb.verify;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.hashtree.AvbHashtree;
import org.jverity.avb.hashtree.AvbTreeReport;
import org.jverity.fec.FecEncoder;
import org.jverity.io.BlockDevice;
import org.jverity.io.FileDevice;
import org.jverity.tree.ProgressListener;
import org.jverity.tree.TreeBuilder;

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
      String holder, PartitionFile target, HashtreeDescriptor d, boolean acceptZeroed, int threads)
      throws IOException {
    String name = d.partitionName();
    String where = name + ": hashtree descriptor in " + holder;
    CheckedHashtree checked = CheckedHashtree.check(where, d, target.metadataStart());
    BlockDevice device = target.device();
    boolean zeroed =
        !checked.treePresent()
            || (checked.geometry().treeSize() > 0 && AvbHashtree.isZeroed(device, d.treeOffset()));
    if (zeroed) {
      requireRootOfData(name, target, checked, threads);
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
    AvbTreeReport report =
        AvbHashtree.check(
            device,
            checked.geometry(),
            d.treeOffset(),
            d.salt(),
            d.rootDigest(),
            threads,
            ProgressListener.NONE);
    if (!report.ok()) {
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
    if (checked.geometry().fecRoots() > 0) {
      checkFec(name, target, checked, threads);
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
   * avbtool checks before it skips the tree: the tree is built into a scratch file (its size, a
   * fraction of the data's, on disk rather than in memory).
   */
  private static void requireRootOfData(
      String name, PartitionFile target, CheckedHashtree checked, int threads) throws IOException {
    HashtreeDescriptor d = checked.descriptor();
    Path scratch = Files.createTempFile("jverity-avb-tree", ".tmp");
    byte[] root;
    try (FileDevice tree = FileDevice.openWrite(scratch)) {
      TreeBuilder builder = TreeBuilder.of(checked.geometry().verityParams(d.salt(), 0));
      if (threads > 0) {
        builder = builder.withThreads(threads);
      }
      root = builder.build(target.device(), tree);
    } finally {
      Files.deleteIfExists(scratch);
    }
    if (!MessageDigest.isEqual(root, d.rootDigest())) {
      throw new AvbVerificationException(
          name
              + ": hashtree of "
              + target.display()
              + " does not match descriptor (the data hashes to another root)");
    }
  }

  /** Re-encodes the FEC over data and tree and compares it with the image's. */
  private static void checkFec(
      String name, PartitionFile target, CheckedHashtree checked, int threads) throws IOException {
    HashtreeDescriptor d = checked.descriptor();
    FecEncoder encoder = FecEncoder.of(checked.geometry().fecLayout(d.treeOffset()));
    if (threads > 0) {
      encoder = encoder.withThreads(threads);
    }
    ParityComparison comparison = new ParityComparison(target.device());
    encoder.encode(target.device(), target.device(), comparison);
    if (comparison.differingBytes() > 0) {
      throw new AvbVerificationException(
          name
              + ": FEC of "
              + target.display()
              + " does not match its data and tree ("
              + comparison.differingBytes()
              + " parity bytes differ, the first at byte "
              + comparison.firstDifference()
              + "): a device could not repair corruption with it");
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
