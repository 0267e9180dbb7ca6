package org.jverity.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jverity.format.HashAlgorithm;
import org.jverity.hash.BlockHasher;
import org.jverity.sig.FsVeritySignature;
import org.jverity.tree.MerkleLayout;

/**
 * The fs-verity file digest of a file, as {@code fsverity digest} prints it: one thread, level by
 * level in memory (the level-0 digests of a file take digestSize/blockSize of its size). A stopgap
 * until the parallel digester of {@code org.jverity.fsverity} replaces it. Stateless.
 */
final class FsVerityFileDigest {
  private FsVerityFileDigest() {}

  /** Size of {@code struct fsverity_descriptor}, in bytes. */
  private static final int DESCRIPTOR_SIZE = 256;

  /** Bytes read from the file at a time (a multiple of every block size). */
  private static final int READ_SIZE = 1 << 20;

  static byte[] compute(Path file, HashAlgorithm alg, int blockSize, byte[] salt) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      MerkleLayout layout = MerkleLayout.fsVerity(alg, blockSize, size); // validates the block size
      BlockHasher hasher = BlockHasher.fsVerity(alg, salt);
      int d = alg.digestSize();
      long blocks = layout.dataBlocks();
      if (blocks * d > Integer.MAX_VALUE - 8) {
        throw new CliException(ExitCode.INVALID_PARAMETER, file + ": " + size + " bytes: too large to digest in memory");
      }
      byte[] level = new byte[(int) (blocks * d)]; // < 2^31 by the check above
      ByteBuffer buf = ByteBuffer.allocate(READ_SIZE);
      long block = 0;
      for (long pos = 0; pos < size; ) {
        int n = ch.read(buf, pos);
        if (n < 0) {
          throw new java.io.EOFException(file + ": shorter than " + size + " bytes");
        }
        pos += n;
        if (buf.hasRemaining() && pos < size) {
          continue; // fill the buffer before hashing: whole blocks only, but for the file's last
        }
        int filled = buf.position();
        java.util.Arrays.fill(buf.array(), filled, Math.min(READ_SIZE, roundUp(filled, blockSize)), (byte) 0);
        for (int off = 0; off < filled; off += blockSize) {
          hasher.hash(buf.array(), off, blockSize, level, (int) (block++ * d));
        }
        buf.clear();
      }
      byte[] root = rootOf(level, blocks, blockSize, d, hasher);
      ByteBuffer desc = ByteBuffer.allocate(DESCRIPTOR_SIZE).order(ByteOrder.LITTLE_ENDIAN);
      desc.put((byte) 1) // version
          .put((byte) FsVeritySignature.algorithmNumber(alg))
          .put((byte) Integer.numberOfTrailingZeros(blockSize)) // log2 of the block size
          .put((byte) salt.length)
          .putInt(0) // sig_size: 0 in the digested descriptor
          .putLong(size);
      desc.put(16, root).put(80, salt);
      return alg.newDigest().digest(desc.array());
    }
  }

  /** Hashes the packed digests of one level into the next until one remains: the root. */
  private static byte[] rootOf(byte[] level, long count, int blockSize, int d, BlockHasher hasher) {
    if (count == 0) {
      return new byte[d]; // the empty file: an all-zero root, no tree
    }
    int perBlock = blockSize / d;
    while (count > 1) {
      long next = Math.ceilDiv(count, perBlock);
      byte[] up = new byte[(int) (next * d)];
      byte[] block = new byte[blockSize];
      for (long i = 0; i < next; i++) {
        int from = (int) (i * perBlock * d);
        int len = (int) Math.min(blockSize, count * d - from);
        java.util.Arrays.fill(block, (byte) 0);
        System.arraycopy(level, from, block, 0, len); // the level's last block is zero-padded
        hasher.hash(block, 0, blockSize, up, (int) (i * d));
      }
      level = up;
      count = next;
    }
    return java.util.Arrays.copyOf(level, d);
  }

  private static int roundUp(int n, int multiple) {
    return (n + multiple - 1) / multiple * multiple;
  }
}
