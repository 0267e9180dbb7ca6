package org.jverity.avb.hashtree;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import org.jverity.fec.FecEncoder;
import org.jverity.fec.FecLayout;
import org.jverity.fec.FecRecovery;
import org.jverity.fec.FecRepairer;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.io.BlockDevice;
import org.jverity.io.FileDevice;
import org.jverity.io.WritableDevice;
import org.jverity.tree.Area;
import org.jverity.tree.CheckReport;
import org.jverity.tree.Corruption;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.ProgressListener;
import org.jverity.tree.TreeBuilder;
import org.jverity.tree.TreeChecker;

/**
 * Builds, checks and zeroes the hashtree and FEC {@code add_hashtree_footer} appends to an image,
 * in place, with the core's tree builder and checker and its FEC encoder and repairer: an AVB tree
 * is the dm-verity v1 tree without superblock ({@link AvbTreeGeometry#verityParams}), its FEC
 * veritysetup's single-device FEC. Everything streams in bounded memory (a few MiB per thread).
 *
 * <p>The image must already hold {@code geometry.imageSize()} bytes: padding the input to the block
 * size (avbtool: to 4096) is the caller's.
 */
public final class AvbHashtree {
  /** What {@code avbtool zero_hashtree} writes at the start of the tree and of the FEC. */
  static final byte[] ZEROED_MAGIC = "ZeRoHaSH".getBytes(StandardCharsets.US_ASCII);

  /** Bytes of zeros written at a time. */
  private static final int ZEROS = 1 << 20;

  private AvbHashtree() {}

  /**
   * Writes the tree at {@code geometry.imageSize()}, then the FEC parity at {@code
   * geometry.fecOffset()} over {@code [0, fecOffset)}, each padding with zeros up to {@link
   * AvbTreeGeometry#treeEnd} and {@link AvbTreeGeometry#end}, and returns the root digest. An empty
   * image has no tree: its root is {@code H(salt)} and nothing is written.
   *
   * @param threads hashing and encoding threads; 0 for one per core
   * @param progress told the bytes hashed and encoded ({@link #workBytes})
   * @throws org.jverity.io.DeviceTooSmallException if the image is shorter than its data
   */
  public static byte[] build(
      WritableDevice image,
      AvbTreeGeometry geometry,
      byte[] salt,
      int threads,
      ProgressListener progress)
      throws IOException {
    if (geometry.imageSize() == 0) {
      return saltDigest(geometry, salt);
    }
    VerityParams p = geometry.verityParams(salt, geometry.imageSize());
    TreeBuilder builder = TreeBuilder.of(p).withProgress(progress);
    if (threads > 0) {
      builder = builder.withThreads(threads);
    }
    requireTreeSize(geometry, builder.layout());
    byte[] root = builder.build(image, image);
    writeZeros(image, geometry.imageSize() + geometry.treeSize(), geometry.treeEnd());
    if (geometry.fecRoots() > 0) {
      FecEncoder encoder = FecEncoder.of(fecLayout(geometry, geometry.imageSize()));
      if (threads > 0) {
        encoder = encoder.withThreads(threads);
      }
      encoder.withProgress(progress).encode(image, image, image);
      writeZeros(image, geometry.fecOffset() + geometry.fecSize(), geometry.end());
    }
    image.flush();
    return root;
  }

  /**
   * The root digest {@link #build} would return, the image left as it is: {@code
   * add_hashtree_footer --no_hashtree} records the root of a tree it does not append. The tree is
   * built in a temporary file (deleted after; about 1/128 of the image with SHA-256), so memory
   * stays bounded.
   */
  public static byte[] rootDigest(
      BlockDevice image,
      AvbTreeGeometry geometry,
      byte[] salt,
      int threads,
      ProgressListener progress)
      throws IOException {
    if (geometry.imageSize() == 0) {
      return saltDigest(geometry, salt);
    }
    TreeBuilder builder = TreeBuilder.of(geometry.verityParams(salt, 0)).withProgress(progress);
    if (threads > 0) {
      builder = builder.withThreads(threads);
    }
    requireTreeSize(geometry, builder.layout());
    Path scratch = Files.createTempFile("jverity-avb-tree", ".tmp");
    try (FileDevice tree = FileDevice.openChannel(scratch, true)) {
      return builder.build(image, tree);
    } finally {
      Files.deleteIfExists(scratch);
    }
  }

  /** Bytes {@link #build} reports to its progress listener: the tree's input, then the FEC's. */
  public static long workBytes(AvbTreeGeometry geometry) {
    if (geometry.imageSize() == 0) {
      return 0;
    }
    long tree =
        TreeBuilder.of(geometry.verityParams(new byte[0], geometry.imageSize())).workBytes();
    return geometry.fecRoots() == 0
        ? tree
        : tree + FecEncoder.of(geometry.fecLayout(geometry.imageSize())).workBytes();
  }

  /**
   * Checks every data and hash block against the root digest, like {@code veritysetup verify}, and
   * when the geometry has FEC: if something is corrupt, what FEC could repair (the image read
   * through the core's verified reader with FEC as its repairer, corrections kept in memory); if
   * nothing is, that the parity stored is the parity of the data and tree (recomputed and
   * compared). Nothing is written.
   *
   * @param treeOffset where the tree is (the descriptor's {@code tree_offset}; avbtool: {@code
   *     imageSize})
   * @param threads hashing threads; 0 for one per core
   */
  public static AvbTreeReport check(
      BlockDevice image,
      AvbTreeGeometry geometry,
      long treeOffset,
      byte[] salt,
      byte[] root,
      int threads,
      ProgressListener progress)
      throws IOException {
    if (geometry.imageSize() == 0) {
      boolean matches = MessageDigest.isEqual(saltDigest(geometry, salt), root);
      return new AvbTreeReport(
          matches, 0, 0, 0, 0, matches ? "" : "empty image: the root digest is not H(salt)");
    }
    VerityParams p = geometry.verityParams(salt, treeOffset);
    TreeChecker checker = TreeChecker.of(p).withProgress(progress);
    if (threads > 0) {
      checker = checker.withThreads(threads);
    }
    MerkleLayout layout = checker.layout();
    requireTreeSize(geometry, layout);
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
        new FecRecovery(p, new FecRepairer(fecLayout(geometry, treeOffset), image, image, image));
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
    FecLayout layout = fecLayout(geometry, treeOffset);
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
   * avbtool's {@code zero_hashtree}: {@code "ZeRoHaSH"} then zeros over the tree, and the same over
   * the FEC when there is one, so a device can tell that both need recomputing. An area of 0 bytes
   * is left alone (avbtool would insert a 4096-byte block there, shifting what follows).
   */
  public static void zero(
      WritableDevice image, long treeOffset, long treeSize, long fecOffset, long fecSize)
      throws IOException {
    if (fecOffset > 0
        && fecSize > 0
        && fecOffset < treeOffset + treeSize
        && treeOffset < fecOffset + fecSize) {
      throw new IOException(
          "FEC at "
              + fecOffset
              + " ("
              + fecSize
              + " bytes) overlaps the tree at "
              + treeOffset
              + " ("
              + treeSize
              + " bytes)");
    }
    zeroArea(image, treeOffset, treeSize);
    if (fecOffset > 0) {
      zeroArea(image, fecOffset, fecSize);
    }
    image.flush();
  }

  /** Whether the tree at {@code treeOffset} starts with {@code zero_hashtree}'s marker. */
  public static boolean isZeroed(BlockDevice image, long treeOffset) throws IOException {
    if (treeOffset < 0 || image.size() - treeOffset < ZEROED_MAGIC.length) {
      return false;
    }
    byte[] head = new byte[ZEROED_MAGIC.length];
    image.readFully(treeOffset, head, 0, head.length);
    return Arrays.equals(head, ZEROED_MAGIC);
  }

  private static void zeroArea(WritableDevice image, long offset, long size) throws IOException {
    if (size <= 0) {
      return;
    }
    image.writeFully(
        offset, ByteBuffer.wrap(ZEROED_MAGIC, 0, (int) Math.min(size, ZEROED_MAGIC.length)));
    writeZeros(image, offset + ZEROED_MAGIC.length, offset + size);
  }

  /** Zeros over {@code [from, to)}, a piece at a time. */
  private static void writeZeros(WritableDevice image, long from, long to) throws IOException {
    byte[] zeros = new byte[(int) Math.min(ZEROS, Math.max(0, to - from))];
    for (long pos = from; pos < to; ) {
      int n = (int) Math.min(zeros.length, to - pos);
      image.writeFully(pos, ByteBuffer.wrap(zeros, 0, n));
      pos += n;
    }
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

  private static FecLayout fecLayout(AvbTreeGeometry geometry, long treeOffset) throws IOException {
    FecLayout layout = geometry.fecLayout(treeOffset);
    if (layout.paritySize() != geometry.fecSize()) {
      throw new IOException(
          "FEC size: "
              + geometry.fecSize()
              + " (expected: "
              + layout.paritySize()
              + " for "
              + geometry.fecRoots()
              + " roots over "
              + geometry.fecOffset()
              + " bytes)");
    }
    return layout;
  }

  private static void requireTreeSize(AvbTreeGeometry geometry, MerkleLayout layout)
      throws IOException {
    if (layout.treeSize() != geometry.treeSize()) {
      throw new IOException(
          "tree size: "
              + geometry.treeSize()
              + " (expected: "
              + layout.treeSize()
              + " for "
              + geometry.imageSize()
              + " bytes in "
              + geometry.blockSize()
              + "-byte blocks)");
    }
  }

  private static byte[] saltDigest(AvbTreeGeometry geometry, byte[] salt) {
    MessageDigest d = geometry.algorithm().newDigest();
    d.update(salt);
    return d.digest();
  }
}
