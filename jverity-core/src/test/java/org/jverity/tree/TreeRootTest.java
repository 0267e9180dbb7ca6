package org.jverity.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.jverity.format.VerityParams;
import org.jverity.hash.BlockHasher;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.DeviceTooSmallException;
import org.jverity.io.MemoryDevice;

/** {@link TreeRoot}: the sizes a tree needs of its devices, and the root digest of both formats. */
class TreeRootTest {
  private static final VerityParams THREE_BLOCKS =
      VerityParams.builder().dataBlocks(3).superblock(false).build();

  @Test
  void namesTheDataAndTheHashAreaAsVeritysetupSizesThem() throws Exception {
    MerkleLayout l = MerkleLayout.dmVerity(THREE_BLOCKS);
    assertThatThrownBy(
            () ->
                TreeRoot.requireDevices(
                    l,
                    new MemoryDevice("d", new byte[8192]),
                    TreeRoot.dataBlocks(l),
                    new MemoryDevice("h", new byte[4096]),
                    TreeRoot.HASH_AREA))
        .isInstanceOf(DeviceTooSmallException.class)
        .hasMessage("d: data (3 blocks of 4096 bytes) has 8192 bytes, needs 12288");
    assertThatThrownBy(
            () ->
                TreeRoot.requireDevices(
                    l,
                    new MemoryDevice("d", new byte[12288]),
                    "data",
                    new MemoryDevice("h", new byte[4095]),
                    TreeRoot.HASH_AREA))
        .isInstanceOf(DeviceTooSmallException.class)
        .hasMessage("h: hash area (truncated?) has 4095 bytes, needs 4096");
    TreeRoot.requireDevices(
        l,
        new MemoryDevice("d", new byte[12288]),
        "data",
        new MemoryDevice("h", new byte[4096]),
        TreeRoot.HASH_AREA);
  }

  @Test
  void aTreeWithoutLevelsNeedsNoHashDevice() throws Exception {
    MerkleLayout l = MerkleLayout.fsVerity(HashAlgorithm.SHA256, 4096, 4096);
    TreeRoot.requireDevices(
        l,
        new MemoryDevice("d", new byte[4096]),
        "data",
        new MemoryDevice("h"),
        TreeRoot.HASH_AREA);
  }

  @Test
  void theRootOfEachShape() throws Exception {
    BlockHasher h = BlockHasher.fsVerity(HashAlgorithm.SHA256, new byte[] {1});
    // The empty file: all zeros, nothing read.
    assertThat(TreeRoot.digest(MerkleLayout.fsVerity(HashAlgorithm.SHA256, 4096, 0), h, null, null))
        .isEqualTo(new byte[32]);
    // One short block: its digest zero-padded to the block size.
    byte[] short100 = new byte[100];
    Arrays.fill(short100, (byte) 5);
    assertThat(
            TreeRoot.digest(
                MerkleLayout.fsVerity(HashAlgorithm.SHA256, 4096, 100),
                h,
                new MemoryDevice("f", short100),
                null))
        .isEqualTo(h.hash(Arrays.copyOf(short100, 4096), 0, 4096));
    // A tree: the digest of the top hash block, wherever the layout puts it.
    MerkleLayout l =
        MerkleLayout.dmVerity(
            VerityParams.builder().dataBlocks(3).hashOffset(8192).superblock(false).build());
    byte[] hash = new byte[3 * 4096];
    Arrays.fill(hash, 8192, hash.length, (byte) 9);
    assertThat(TreeRoot.digest(l, h, null, new MemoryDevice("h", hash)))
        .isEqualTo(h.hash(hash, 8192, 4096));
  }
}
