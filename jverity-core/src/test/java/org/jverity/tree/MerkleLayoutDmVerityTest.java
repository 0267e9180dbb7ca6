package org.jverity.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.format.HashFormat;
import org.jverity.format.HashNames;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.hash.HashAlgorithm;

/**
 * The dm-verity factory of {@link MerkleLayout}: the sizes veritysetup reports, where the tree sits
 * after the superblock, the slots of both formats, and the overlap of hash area and data.
 */
class MerkleLayoutDmVerityTest {

  private static VerityParams.Builder params(long blocks) {
    return VerityParams.builder().dataBlocks(blocks).superblock(false);
  }

  @ParameterizedTest(name = "{0} blocks, {1}, {2} B hash blocks -> {3} levels, {4} hash blocks")
  @CsvSource({
    // Sizes veritysetup 2.6.1 reported for these (REFERENCE.md §2.2, [V]); both sides of each
    // fan-out boundary.
    "1, sha256, 4096, 0, 0",
    "2, sha256, 4096, 1, 1",
    "128, sha256, 4096, 1, 1",
    "129, sha256, 4096, 2, 3",
    "1250, sha256, 4096, 2, 11",
    "16384, sha256, 4096, 2, 129",
    "16385, sha256, 4096, 3, 132",
    "129, sha1, 4096, 2, 3",
    "129, sha512, 4096, 2, 4",
    "16, sha256, 512, 1, 1",
    "17, sha256, 512, 2, 3",
    "257, sha256, 512, 3, 20",
  })
  void levelsAndSizesMatchVeritysetup(long n, String alg, int hbs, int levels, long hashBlocks) {
    MerkleLayout g =
        MerkleLayout.dmVerity(
            params(n).hashAlgorithm(HashNames.fromName(alg)).hashBlockSize(hbs).build());
    assertThat(g.levels()).isEqualTo(levels);
    assertThat(g.hashBlocks()).isEqualTo(hashBlocks);
  }

  @Test
  void topLevelComesFirstOnDisk() {
    MerkleLayout g = MerkleLayout.dmVerity(params(16385).build());
    assertThat(g.levelStart(2)).isZero();
    assertThat(g.levelStart(1)).isEqualTo(1);
    assertThat(g.levelStart(0)).isEqualTo(3);
    assertThat(g.levelBlocks(0)).isEqualTo(129);
  }

  @Test
  void superblockReservesWholeHashBlocks() {
    // 1250 zero blocks: veritysetup prints "Hash device size: 49152" with a superblock, 45056
    // without.
    assertThat(MerkleLayout.dmVerity(params(1250).superblock(true).build()).hashDeviceSize())
        .isEqualTo(49152);
    assertThat(MerkleLayout.dmVerity(params(1250).build()).hashDeviceSize()).isEqualTo(45056);
    // hash_start = ceil((offset + 512) / hbs) with a superblock, floor(offset / hbs) without.
    assertThat(
            MerkleLayout.dmVerity(
                    params(4).blockSize(1024).hashOffset(8192).superblock(true).build())
                .firstHashBlock())
        .isEqualTo(9);
    assertThat(MerkleLayout.dmVerity(params(4).hashOffset(4096).build()).firstHashBlock())
        .isEqualTo(1);
    assertThat(MerkleLayout.dmVerity(params(4).hashOffset(512).build()).firstHashBlock()).isZero();
  }

  @Test
  void slotsArePowerOfTwoInFormat1AndPackedInFormat0() {
    VerityParams.Builder sha1 = params(1000).hashAlgorithm(HashAlgorithm.SHA1);
    assertThat(MerkleLayout.dmVerity(sha1.build()).slotSize()).isEqualTo(32);
    assertThat(MerkleLayout.dmVerity(sha1.hashFormat(HashFormat.CHROME_OS).build()).slotSize())
        .isEqualTo(20);
    // The fan-out is a power of two in both formats: 128 for sha1/4096, not 204.
    assertThat(MerkleLayout.dmVerity(sha1.build()).hashesPerBlock()).isEqualTo(128);
  }

  @Test
  void locatesTheDigestOfEachDataBlock() {
    MerkleLayout g = MerkleLayout.dmVerity(params(16385).build());
    assertThat(g.locateForDataBlock(0, 0)).isEqualTo(new HashLocation(3, 0));
    assertThat(g.locateForDataBlock(0, 129)).isEqualTo(new HashLocation(4, 32));
    assertThat(g.locateForDataBlock(1, 129)).isEqualTo(new HashLocation(1, 32));
    assertThat(g.locateForDataBlock(2, 16384)).isEqualTo(new HashLocation(0, 32));
  }

  @Test
  void placesTheTreeAfterTheSuperblock() {
    // 1250 blocks, superblock at 8192: the tree from block 3 (8192 + 512 rounded up), 11 blocks.
    MerkleLayout g = MerkleLayout.dmVerity(params(1250).hashOffset(8192).superblock(true).build());
    assertThat(g.treeOffset()).isEqualTo(3 * 4096);
    assertThat(g.treeSize()).isEqualTo(11 * 4096);
    assertThat(g.hashDeviceSize()).isEqualTo(14 * 4096);
    assertThat(g.hashAreaStart()).isEqualTo(8192); // the superblock's offset
    // No superblock, an offset inside a block: the tree starts in the block holding the offset.
    assertThat(MerkleLayout.dmVerity(params(4).hashOffset(6144).build()).hashAreaStart())
        .isEqualTo(4096);
  }

  @Test
  void indexOnPathIsTheBlockHashedIntoEachLevel() {
    MerkleLayout g = MerkleLayout.dmVerity(params(16385).build()); // fan-out 128, three levels
    assertThat(g.indexOnPath(0, 16384)).isEqualTo(16384); // the data block itself
    assertThat(g.indexOnPath(1, 16384)).isEqualTo(128); // the level-0 hash block holding its digest
    assertThat(g.indexOnPath(2, 16384)).isEqualTo(1);
    for (int level = 0; level < g.levels(); level++) {
      assertThat(g.locate(level, g.indexOnPath(level, 16384)))
          .isEqualTo(g.locateForDataBlock(level, 16384));
    }
  }

  @Test
  void refusesAHashAreaOverlappingTheData() {
    MerkleLayout g =
        MerkleLayout.dmVerity(
            params(2).hashOffset(4096).superblock(true).uuid(java.util.UUID.randomUUID()).build());
    assertThatThrownBy(g::checkNoOverlapWithData)
        .isInstanceOf(VerityParameterException.class)
        .hasMessageContaining("overlaps the data");
    MerkleLayout.dmVerity(params(2).hashOffset(8192).build()).checkNoOverlapWithData();
  }

  @Test
  void refusesSizesPastTwoToTheSixtyThree() {
    assertThatThrownBy(
            () ->
                MerkleLayout.dmVerity(
                    params(1).hashOffset(Long.MAX_VALUE - 511).superblock(true).build()))
        .isInstanceOf(VerityParameterException.class);
  }
}
