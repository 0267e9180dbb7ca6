package org.jverity.fsverity;

import java.util.Arrays;
import org.jverity.hash.BlockHasher;

/**
 * The fs-verity descriptor and file digest of a file held whole in a byte array: the same tree as
 * {@link FsVerityTreeBuilder}'s, hashed level by level in memory, without devices, threads or chunk
 * buffers to set up. For the many-small-files case ({@code digest --recursive} over a container
 * image), where setting those up costs more than hashing a file of a few blocks: such a file's
 * level 0 is one run of blocks ({@link BlockHasher#hashBlocks}, one call), and a file of up to a
 * hash block's worth of blocks (128 with SHA-256 and 4 KiB blocks) has no other level.
 *
 * <p>Keeps its hashers and level buffers from file to file, so it is <b>not</b> thread-safe: one
 * per thread. Memory: the level buffers, about 1/(fan-out − 1) of the largest file digested.
 */
public final class SmallFileDigester {
  private final FsVerityParams params;
  private final int blockSize; // bytes
  private final int digestSize; // bytes
  private final BlockHasher hasher; // the tree's: salted as fs-verity salts
  private final BlockHasher descriptorHasher; // the file digest's: the descriptor, unsalted
  private final byte[] digest; // the root's or the file digest's, before it is copied out
  private byte[] levels = new byte[0]; // the levels above the data, reused; grown as needed
  private int dirty; // levels[dirty..] are all zeros: only the bytes below may need clearing

  public SmallFileDigester(FsVerityParams params) {
    this.params = params;
    this.blockSize = params.blockSize();
    this.digestSize = params.algorithm().digestSize();
    this.hasher = BlockHasher.fsVerity(params.algorithm(), params.salt());
    this.descriptorHasher = BlockHasher.saltBefore(params.algorithm(), new byte[0]);
    this.digest = new byte[digestSize];
  }

  public FsVerityParams params() {
    return params;
  }

  /**
   * How long an array holding a file of {@code length} bytes must be for {@link #digest}: the
   * length rounded up to whole blocks, the last block's padding hashed in place.
   */
  public long capacity(long length) {
    return Math.max(1, Math.ceilDiv(length, blockSize)) * blockSize;
  }

  /**
   * The descriptor of the file whose bytes are {@code data[0, length)}. Zeroes {@code data[length,
   * capacity(length))} (the last block's padding) first, so the array must be at least {@link
   * #capacity} long; the bytes before {@code length} are not changed.
   */
  public FsVerityDescriptor digest(byte[] data, int length) {
    if (length < 0 || data.length < capacity(length)) {
      throw new IllegalArgumentException(
          "file of "
              + length
              + " bytes in an array of "
              + data.length
              + " (expected: at least "
              + capacity(length)
              + ")");
    }
    if (length == 0) { // the empty file: no blocks, a root of zeros
      return new FsVerityDescriptor(params, 0, new byte[digestSize]);
    }
    int blocks = Math.ceilDiv(length, blockSize);
    Arrays.fill(data, length, blocks * blockSize, (byte) 0);
    byte[] level = data;
    int levelAt = 0; // where the level being hashed starts in `level`
    int next = 0; // where the level above it starts in `levels`
    while (blocks > 1) {
      int above = Math.ceilDiv(blocks, blockSize / digestSize); // hash blocks of the level above
      int end = next + above * blockSize;
      int written = next + blocks * digestSize; // digests packed, then zeros to the block's end
      ensureLevels(end);
      if (written < Math.min(end, dirty)) {
        Arrays.fill(levels, written, Math.min(end, dirty), (byte) 0);
      }
      hasher.hashBlocks(level, levelAt, blockSize, blocks, levels, next, digestSize);
      dirty = Math.max(dirty, written);
      level = levels;
      levelAt = next;
      next += above * blockSize;
      blocks = above;
    }
    hasher.hashBlocks(level, levelAt, blockSize, 1, digest, 0, digestSize);
    return new FsVerityDescriptor(params, length, digest);
  }

  /**
   * The file digest of {@code descriptor} (as {@link FsVerityDescriptor#digest()}), hashed with
   * this digester's hasher instead of a new one.
   */
  public byte[] fileDigest(FsVerityDescriptor descriptor) {
    byte[] encoded = descriptor.encode();
    descriptorHasher.hashBlocks(encoded, 0, encoded.length, 1, digest, 0, digestSize);
    return digest.clone();
  }

  private void ensureLevels(int size) {
    if (levels.length < size) {
      levels = Arrays.copyOf(levels, Math.max(size, 2 * levels.length));
    }
  }
}
