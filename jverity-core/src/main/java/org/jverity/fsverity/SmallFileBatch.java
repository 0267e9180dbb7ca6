package org.jverity.fsverity;

import java.util.Arrays;
import org.jverity.hash.BlockHasher;

/**
 * The fs-verity descriptors and file digests of many small files, hashed together so that no block
 * waits alone for a partner: the files lie one after another in one array, each from a block
 * boundary, and {@link #hash} hashes every file's data blocks as one run, then every file's one
 * hash block as one run, then every descriptor as one run. The native loop takes a SHA-256 run two
 * blocks at a time, so a file of one block (or the odd last block of a file of three) is paired
 * with the next file's, as are the files' hash blocks and descriptors; digested one file at a time
 * ({@link SmallFileDigester}), each of them was hashed alone, one stream.
 *
 * <p>Takes the files whose tree has at most one level above the data (up to {@link #maxFileBytes}:
 * 128 blocks with SHA-256 and 4 KiB blocks), the many-small-files case of {@code digest
 * --recursive}; the digests are those of {@link SmallFileDigester} and of the kernel.
 *
 * <p>Keeps its arrays from batch to batch: <b>not</b> thread-safe, one per thread. Memory: the
 * capacity given, plus a digest, a hash block's share and a descriptor per file.
 */
public final class SmallFileBatch {
  private final FsVerityParams params;
  private final int blockSize; // bytes
  private final int digestSize; // bytes
  private final int fanOut; // digests in a hash block
  private final BlockHasher hasher; // the tree's: salted as fs-verity salts
  private final BlockHasher descriptorHasher; // the file digest's: the descriptor, unsalted
  private final byte[] data; // the files, each from a block boundary, its last block zero-padded
  private final long[] lengths; // bytes, by file
  private final int[] firstBlocks; // of each file in `data`
  private int files;
  private int end; // bytes of `data` taken: a multiple of the block size
  private boolean hashed;
  private byte[] dataDigests = new byte[0]; // one per data block, in order
  private byte[] hashBlocks = new byte[0]; // one per file of more than one block
  private byte[] hashBlockDigests = new byte[0];
  private byte[] descriptors = new byte[0]; // encoded, FsVerityDescriptor.SIZE apart
  private final FsVerityDescriptor[] described;
  private byte[] fileDigests = new byte[0];

  /**
   * A batch of up to {@code maxFiles} files whose bytes, each rounded up to whole blocks, fit in
   * {@code capacity} bytes (rounded down to whole blocks; at least one block).
   */
  public SmallFileBatch(FsVerityParams params, int capacity, int maxFiles) {
    if (maxFiles < 1) {
      throw new IllegalArgumentException("files in a batch: " + maxFiles + " (expected: >= 1)");
    }
    this.params = params;
    this.blockSize = params.blockSize();
    this.digestSize = params.algorithm().digestSize();
    this.fanOut = blockSize / digestSize;
    this.hasher = BlockHasher.fsVerity(params.algorithm(), params.salt());
    this.descriptorHasher = BlockHasher.saltBefore(params.algorithm(), new byte[0]);
    this.data = new byte[Math.max(blockSize, capacity - capacity % blockSize)];
    this.lengths = new long[maxFiles];
    this.firstBlocks = new int[maxFiles];
    this.described = new FsVerityDescriptor[maxFiles];
  }

  /** The largest file this batch takes: one hash block's worth of data blocks. */
  public long maxFileBytes() {
    return (long) fanOut * blockSize;
  }

  /** The array the next file's bytes are read into, from {@link #end()} on. */
  public byte[] buffer() {
    return data;
  }

  /** Where the next file's bytes go in {@link #buffer()}: a block boundary. */
  public int end() {
    return end;
  }

  /** Bytes a next file may take in {@link #buffer()} from {@link #end()}; 0 when full. */
  public int room() {
    return files == lengths.length ? 0 : (int) Math.min(data.length - end, maxFileBytes());
  }

  /** Whether a file of {@code length} bytes fits in what is left of this batch. */
  public boolean fits(long length) {
    return files < lengths.length && length >= 0 && blocksOf(length) * (long) blockSize <= room();
  }

  /** Whether a file of {@code length} bytes is for a batch: whether an empty one would take it. */
  public boolean takes(long length) {
    return length >= 0
        && blocksOf(length) * (long) blockSize <= Math.min(data.length, maxFileBytes());
  }

  /** Files added since the last {@link #clear}. */
  public int size() {
    return files;
  }

  /**
   * Adds the file whose bytes were read into {@code buffer()[end(), end() + length)} and returns
   * its index in the batch; zeroes its last block's padding. The caller checked {@link #fits}.
   */
  public int add(int length) {
    if (!fits(length)) {
      throw new IllegalArgumentException(
          "file of " + length + " bytes in a batch with " + room() + " bytes of room");
    }
    int blocks = blocksOf(length);
    zero(data, end + length, end + blocks * blockSize);
    lengths[files] = length;
    firstBlocks[files] = end / blockSize;
    end += blocks * blockSize;
    hashed = false;
    return files++;
  }

  /** Hashes every file added: three runs, whatever the number of files. */
  public void hash() {
    if (hashed) {
      return;
    }
    int blocks = end / blockSize;
    dataDigests = atLeast(dataDigests, blocks * digestSize);
    hasher.hashBlocks(data, 0, blockSize, blocks, dataDigests, 0, digestSize);
    // A file of more than one block has one hash block: its data digests, then zeros. The array is
    // all zeros between batches: only the digests written are cleared again.
    int withTree = 0;
    for (int i = 0; i < files; i++) {
      if (blocksOf(lengths[i]) > 1) {
        withTree++;
      }
    }
    hashBlocks = atLeast(hashBlocks, withTree * blockSize);
    for (int i = 0, k = 0; i < files; i++) {
      int n = blocksOf(lengths[i]);
      if (n > 1) {
        System.arraycopy(
            dataDigests, firstBlocks[i] * digestSize, hashBlocks, k++ * blockSize, n * digestSize);
      }
    }
    hashBlockDigests = atLeast(hashBlockDigests, withTree * digestSize);
    hasher.hashBlocks(hashBlocks, 0, blockSize, withTree, hashBlockDigests, 0, digestSize);
    for (int i = 0, k = 0; i < files; i++) {
      int n = blocksOf(lengths[i]);
      if (n > 1) {
        zero(hashBlocks, k * blockSize, k++ * blockSize + n * digestSize);
      }
    }
    int size = FsVerityDescriptor.SIZE;
    descriptors = atLeast(descriptors, files * size);
    for (int i = 0, k = 0; i < files; i++) {
      int n = blocksOf(lengths[i]);
      byte[] root = new byte[digestSize]; // the empty file's: zeros
      if (n == 1) {
        System.arraycopy(dataDigests, firstBlocks[i] * digestSize, root, 0, digestSize);
      } else if (n > 1) {
        System.arraycopy(hashBlockDigests, k++ * digestSize, root, 0, digestSize);
      }
      described[i] = new FsVerityDescriptor(params, lengths[i], root);
      System.arraycopy(described[i].encode(), 0, descriptors, i * size, size);
    }
    fileDigests = atLeast(fileDigests, files * digestSize);
    descriptorHasher.hashBlocks(descriptors, 0, size, files, fileDigests, 0, digestSize);
    hashed = true;
  }

  /** File {@code i}'s descriptor, after {@link #hash}. */
  public FsVerityDescriptor descriptor(int i) {
    requireHashed(i);
    return described[i];
  }

  /** File {@code i}'s file digest (its descriptor's digest), after {@link #hash}. */
  public byte[] fileDigest(int i) {
    requireHashed(i);
    return Arrays.copyOfRange(fileDigests, i * digestSize, (i + 1) * digestSize);
  }

  /** Empties the batch for the next files. */
  public void clear() {
    Arrays.fill(described, 0, files, null);
    files = 0;
    end = 0;
    hashed = false;
  }

  private void requireHashed(int i) {
    if (!hashed || i < 0 || i >= files) {
      throw new IllegalStateException(
          "file " + i + " of a batch of " + files + (hashed ? "" : ", not hashed yet"));
    }
  }

  private int blocksOf(long length) {
    return (int) Math.ceilDiv(length, blockSize);
  }

  /** A new array is all zeros, as {@link #hashBlocks} must be between batches; no copy needed. */
  private static byte[] atLeast(byte[] a, int size) {
    return a.length >= size ? a : new byte[Math.max(size, 2 * a.length)];
  }

  /**
   * Zeroes {@code a[from, to)} by copying from a block of zeros: a copy is a stub under C1 too,
   * where {@code Arrays.fill} is a loop of single bytes (the one-shot commands run C1 alone).
   */
  private static void zero(byte[] a, int from, int to) {
    for (int at = from; at < to; at += ZEROS.length) {
      System.arraycopy(ZEROS, 0, a, at, Math.min(ZEROS.length, to - at));
    }
  }

  private static final byte[] ZEROS = new byte[4096];
}
