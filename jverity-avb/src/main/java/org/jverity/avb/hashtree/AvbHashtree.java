package org.jverity.avb.hashtree;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.jverity.fec.FecEncoder;
import org.jverity.format.VerityParams;
import org.jverity.io.BlockDevice;
import org.jverity.io.FileDevice;
import org.jverity.io.ScratchFiles;
import org.jverity.io.WritableDevice;
import org.jverity.tree.ProgressListener;
import org.jverity.tree.TreeBuilder;

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
      return geometry.emptyRoot(salt);
    }
    VerityParams p = geometry.verityParams(salt, geometry.imageSize());
    TreeBuilder builder = TreeBuilder.of(p).withProgress(progress);
    if (threads > 0) {
      builder = builder.withThreads(threads);
    }
    byte[] root = builder.build(image, image);
    writeZeros(image, geometry.imageSize() + geometry.treeSize(), geometry.treeEnd());
    if (geometry.fecRoots() > 0) {
      FecEncoder encoder = FecEncoder.of(geometry.fecLayout(geometry.imageSize()));
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
      return geometry.emptyRoot(salt);
    }
    TreeBuilder builder = TreeBuilder.of(geometry.verityParams(salt, 0)).withProgress(progress);
    if (threads > 0) {
      builder = builder.withThreads(threads);
    }
    Path scratch = ScratchFiles.create(null, "jverity-avb-tree", ".tmp");
    try (FileDevice tree = FileDevice.openChannel(scratch, true)) {
      return builder.build(image, tree);
    } finally {
      Files.deleteIfExists(scratch);
    }
  }

  /**
   * Bytes {@link #build} and {@link #check} report to their progress listener: the tree's input,
   * then the FEC's.
   */
  public static long workBytes(AvbTreeGeometry geometry) {
    long tree = rootWorkBytes(geometry);
    return geometry.fecRoots() == 0 || tree == 0
        ? tree
        : tree + FecEncoder.of(geometry.fecLayout(geometry.imageSize())).workBytes();
  }

  /** Bytes {@link #rootDigest} reports to its progress listener: the tree's input. */
  public static long rootWorkBytes(AvbTreeGeometry geometry) {
    return geometry.imageSize() == 0
        ? 0
        : TreeBuilder.of(geometry.verityParams(new byte[0], geometry.imageSize())).workBytes();
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
    return TreeCheck.run(image, geometry, treeOffset, salt, root, threads, progress);
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
}
