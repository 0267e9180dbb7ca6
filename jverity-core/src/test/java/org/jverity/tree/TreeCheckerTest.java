package org.jverity.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.jverity.format.VerityParams;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.MemoryDevice;
import org.jverity.testing.Images;

class TreeCheckerTest {
  // 512-byte blocks and sha256: 16 digests per hash block, so 1000 data blocks make three levels
  // (63 + 4 + 1 hash blocks) in a small image.
  private static final VerityParams P =
      VerityParams.builder()
          .blockSize(512)
          .dataBlocks(1000)
          .salt(Images.random(7, 32))
          .superblock(false)
          .build();
  private static final MerkleLayout G = MerkleLayout.dmVerity(P);

  private byte[] data;
  private byte[] tree;
  private byte[] root;

  @BeforeEach
  void format() throws Exception {
    data = Images.random(1, 1000 * 512);
    MemoryDevice hash = new MemoryDevice("hash");
    root = TreeBuilder.of(P).build(new MemoryDevice("data", data), hash);
    tree = hash.toByteArray();
  }

  private CheckReport check() throws Exception {
    return check(P, root);
  }

  private CheckReport check(VerityParams p, byte[] rootHash) throws Exception {
    return TreeChecker.of(p)
        .withThreads(2)
        .check(new MemoryDevice("data", data), new MemoryDevice("hash", tree), rootHash);
  }

  private static long blockOffset(int level, long index) {
    return (G.levelStart(level) + index) * 512;
  }

  @Test
  void anIntactImageVerifies() throws Exception {
    CheckReport r = check();
    assertThat(r.ok()).isTrue();
    assertThat(r.corruptions()).isEmpty();
    assertThat(r.digestsCompared()).isEqualTo(1000 + 63 + 4);
  }

  @Test
  @DisplayName("a flipped data byte is reported as that data block")
  void dataCorruptionNamesTheBlock() throws Exception {
    data[777 * 512 + 300] ^= 0x40;
    CheckReport r = check();
    assertThat(r.rootMatches()).isTrue();
    assertThat(r.corruptions()).containsExactly(Corruption.data(777));
    assertThat(r.uncheckedDataBlocks()).isZero();
  }

  @Test
  @DisplayName("a flipped level-0 digest blames the hash block, not the 16 data blocks below it")
  void level0CorruptionNamesTheHashBlock() throws Exception {
    tree[(int) blockOffset(0, 5) + 33] ^= 1; // digest of data block 81
    CheckReport r = check();
    assertThat(r.corruptions())
        .containsExactly(
            new Corruption(Area.HASH, G.levelStart(0) + 5, 0, Corruption.Kind.DIGEST_MISMATCH));
    assertThat(r.uncheckedDataBlocks()).isEqualTo(16);
    assertThat(r.dataCorruptionCount()).isZero();
  }

  @Test
  void level1CorruptionLeavesItsSubtreeUnchecked() throws Exception {
    tree[(int) blockOffset(1, 3) + 1] ^= 1; // the last level-1 block covers data blocks 768..999
    CheckReport r = check();
    assertThat(r.corruptions())
        .containsExactly(
            new Corruption(Area.HASH, G.levelStart(1) + 3, 1, Corruption.Kind.DIGEST_MISMATCH));
    assertThat(r.uncheckedDataBlocks()).isEqualTo(1000 - 768);
  }

  @Test
  void aDamagedTopBlockIsBlamedAndNothingBelowCanBeChecked() throws Exception {
    tree[(int) blockOffset(2, 0) + 64] ^= 1; // digest of level-1 block 2
    CheckReport r = check();
    assertThat(r.rootMatches()).isFalse();
    assertThat(r.corruptions())
        .containsExactly(new Corruption(Area.HASH, 0, 2, Corruption.Kind.DIGEST_MISMATCH));
    assertThat(r.uncheckedDataBlocks()).isEqualTo(1000);
    assertThat(r.nothingMatches()).isFalse();
  }

  @Test
  void aWrongRootHashIsToldApartFromDamage() throws Exception {
    byte[] wrong = root.clone();
    wrong[0] ^= 1;
    CheckReport r = check(P, wrong);
    assertThat(r.rootMatches()).isFalse();
    assertThat(r.corruptions()).isEmpty();
    assertThat(r.nothingMatches()).isFalse();
    assertThat(r.computedRoot()).isEqualTo(root);
  }

  @Test
  void aWrongSaltMatchesNothing() throws Exception {
    CheckReport r = check(P.toBuilder().salt(new byte[] {1}).build(), root);
    assertThat(r.nothingMatches()).isTrue();
  }

  @Test
  void nonZeroSpareBytesAreReportedOncePerBlock() throws Exception {
    // sha1 in 512-byte blocks: 16 slots of 32 bytes, each with 12 spare bytes after the digest.
    VerityParams sha1 = P.toBuilder().hashAlgorithm(HashAlgorithm.SHA1).build();
    MemoryDevice hash = new MemoryDevice("hash");
    byte[] sha1Root = TreeBuilder.of(sha1).build(new MemoryDevice("data", data), hash);
    byte[] clean = hash.toByteArray();
    MerkleLayout g = MerkleLayout.dmVerity(sha1);

    tree = clean.clone();
    tree[(int) (g.levelStart(0) + 2) * 512 + 25] = 1; // in slot 0's spare bytes
    assertThat(check(sha1, sha1Root).corruptions())
        .containsExactly(
            new Corruption(Area.HASH, g.levelStart(0) + 2, 0, Corruption.Kind.DIGEST_MISMATCH));

    tree = clean.clone();
    tree[(int) g.levelStart(2) * 512 + 500] = 1; // past the top block's 4 digests
    CheckReport top = check(sha1, sha1Root);
    assertThat(top.rootMatches()).isFalse();
    assertThat(top.corruptions())
        .containsExactly(
            new Corruption(Area.HASH, g.levelStart(2), 2, Corruption.Kind.SPARE_NOT_ZERO));
  }

  @Nested
  @DisplayName("with many corruptions")
  class ManyCorruptions {
    @Test
    @DisplayName("lists the first 100 in block order and counts the rest")
    void listsTheFirstHundred() throws Exception {
      for (int b = 999; b >= 0; b -= 3) {
        data[b * 512] ^= 1;
      }
      CheckReport r = check();
      assertThat(r.corruptionCount()).isEqualTo(334);
      assertThat(r.dataCorruptionCount()).isEqualTo(334);
      List<Corruption> listed = r.corruptions();
      assertThat(listed).hasSize(Corruption.MAX_REPORTED);
      assertThat(listed.getFirst()).isEqualTo(Corruption.data(0));
      assertThat(listed.getLast()).isEqualTo(Corruption.data(297));
    }
  }
}
