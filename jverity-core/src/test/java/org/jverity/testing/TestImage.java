package org.jverity.testing;

import java.io.IOException;
import org.jverity.format.VerityParams;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.BlockDevice;
import org.jverity.io.MemoryDevice;
import org.jverity.tree.TreeBuilder;

/**
 * A dm-verity image formatted in memory: parameters, data, hash area and root hash. The arrays are
 * the test's to change (corrupt); {@link #dataDevice()} and {@link #hashDevice()} snapshot them.
 */
public record TestImage(VerityParams params, byte[] data, byte[] hash, byte[] root) {

  /**
   * {@code blocks} random data blocks of {@code blockSize} bytes, sha256, format 1, no superblock.
   */
  public static TestImage random(int blocks, int blockSize, long seed) throws IOException {
    return of(Images.random(seed, blocks * blockSize), blockSize, HashAlgorithm.SHA256, seed);
  }

  public static TestImage of(byte[] data, int blockSize, HashAlgorithm alg, long seed)
      throws IOException {
    VerityParams p =
        VerityParams.builder()
            .dataBlockSize(blockSize)
            .hashBlockSize(blockSize)
            .hashAlgorithm(alg)
            .dataBlocks(data.length / blockSize)
            .salt(Images.random(seed, 32))
            .superblock(false)
            .build();
    MemoryDevice hash = new MemoryDevice("hash");
    byte[] root = TreeBuilder.of(p).withThreads(1).build(new MemoryDevice("data", data), hash);
    return new TestImage(p, data, hash.toByteArray(), root);
  }

  public BlockDevice dataDevice() {
    return new MemoryDevice("data", data);
  }

  public BlockDevice hashDevice() {
    return new MemoryDevice("hash", hash);
  }

  public int blockSize() {
    return params.dataBlockSize();
  }
}
