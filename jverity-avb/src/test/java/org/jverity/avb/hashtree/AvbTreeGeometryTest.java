package org.jverity.avb.hashtree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.hash.HashAlgorithm;

class AvbTreeGeometryTest {
  private static final long MIB = 1 << 20;

  @Test
  void aospVectorSha1TreeAndFec() {
    AvbTreeGeometry g = AvbTreeGeometry.of(1_052_672, 4096, HashAlgorithm.SHA1, 2);
    assertThat(g.treeSize()).isEqualTo(16384);
    assertThat(g.fecOffset()).isEqualTo(1_069_056);
    assertThat(g.fecSize()).isEqualTo(16384);
    assertThat(g.treeEnd()).isEqualTo(1_069_056);
    assertThat(g.end()).isEqualTo(1_085_440); // vbmeta_offset in the AOSP test
    assertThat(AvbTreeGeometry.of(1_052_672, 4096, HashAlgorithm.SHA512, 0).treeSize())
        .isEqualTo(24576);
  }

  @Test
  void withoutFecNothingFollowsTheTree() {
    AvbTreeGeometry g = AvbTreeGeometry.of(1_052_672, 4096, HashAlgorithm.SHA1, 0);
    assertThat(g.fecOffset()).isZero();
    assertThat(g.fecSize()).isZero();
    assertThat(g.end()).isEqualTo(1_069_056); // vbmeta@1069056 with no FEC
  }

  @Test
  void oneBlockImageHasNoTreeButFec() {
    AvbTreeGeometry g = AvbTreeGeometry.of(4096, 4096, HashAlgorithm.SHA1, 2);
    assertThat(g.treeSize()).isZero();
    assertThat(g.fecOffset()).isEqualTo(4096);
    assertThat(g.fecSize()).isEqualTo(8192);
    assertThat(g.end()).isEqualTo(12288); // vbmeta@12288
  }

  @Test
  void emptyImageHasNothing() {
    AvbTreeGeometry g = AvbTreeGeometry.of(0, 4096, HashAlgorithm.SHA256, 2);
    assertThat(g.treeSize()).isZero();
    assertThat(g.fecSize()).isZero();
    assertThat(g.end()).isZero();
    assertThatThrownBy(() -> g.verityParams(new byte[0], 0))
        .isInstanceOf(VerityParameterException.class)
        .hasMessageContaining("image size: 0");
  }

  @Test
  void oneMibWith32ByteSaltLayout() {
    AvbTreeGeometry g = AvbTreeGeometry.of(MIB, 4096, HashAlgorithm.SHA256, 2);
    assertThat(g.treeSize()).isEqualTo(12288);
    assertThat(g.fecOffset()).isEqualTo(1_060_864); // AVB.md 4.3: --fec-offset=1060864
    assertThat(g.fecSize()).isEqualTo(16384);
  }

  @Test
  void avbrootGigabyteGeometry() {
    assertThat(AvbTreeGeometry.treeSize(1L << 30, 4096, HashAlgorithm.SHA256)).isEqualTo(8_458_240);
  }

  @Test
  void levelsAreComputedOnTheFinalSizeBelow4096() {
    // avbtool crashes on a 1024-byte image with --block_size 1024 (its levels and its hashing
    // disagree on the size); here the one-block image simply has no tree.
    AvbTreeGeometry g = AvbTreeGeometry.of(1024, 1024, HashAlgorithm.SHA256, 2);
    assertThat(g.treeSize()).isZero();
    assertThat(g.fecOffset()).isEqualTo(1024);
    assertThat(g.fecSize()).isEqualTo(2 * 1024); // one round of 2 parity blocks of 1024 bytes
    AvbTreeGeometry two = AvbTreeGeometry.of(2048, 1024, HashAlgorithm.SHA256, 0);
    assertThat(two.treeSize()).isEqualTo(1024);
    assertThat(two.treeEnd()).isEqualTo(2048 + 4096); // padded to avbtool's 4096
  }

  @Test
  void verityParamsDescribeTheSingleDeviceLayout() {
    AvbTreeGeometry g = AvbTreeGeometry.of(129 * 4096, 4096, HashAlgorithm.SHA1, 2);
    VerityParams p = g.verityParams(new byte[] {1, 2}, g.imageSize());
    assertThat(p.superblock()).isFalse();
    assertThat(p.dataBlocks()).isEqualTo(129);
    assertThat(p.hashOffset()).isEqualTo(129 * 4096);
    assertThat(p.salt()).containsExactly(1, 2);
    assertThat(g.fecLayout(g.imageSize()).paritySize()).isEqualTo(g.fecSize());
  }

  @Test
  void libfecSizes() {
    // fec --print-fec-size includes the 4096-byte header fec --encode appends; the descriptor's
    // fec_size does not.
    assertThat(AvbTreeGeometry.fecSize(1_069_056, 2)).isEqualTo(16384);
    assertThat(AvbTreeGeometry.printFecSize(1_069_056, 2)).isEqualTo(20480);
    assertThat(AvbTreeGeometry.printFecSize(MIB, 2)).isEqualTo(20480);
    assertThat(AvbTreeGeometry.printFecSize(MIB, 4)).isEqualTo(36864);
    assertThat(AvbTreeGeometry.printFecSize(8 * MIB, 2)).isEqualTo(77824);
    assertThat(AvbTreeGeometry.printFecSize(4 * MIB, 8)).isEqualTo(167936);
    assertThat(AvbTreeGeometry.fecSize(0, 2)).isZero();
  }

  @Test
  void calcMaxImageSizeAsAvbtool() {
    HashAlgorithm sha1 = HashAlgorithm.SHA1; // avbtool's default
    // AOSP avbtool_unittest: 10 MiB partition, with and without FEC and hashtree.
    assertThat(AvbTreeGeometry.maxImageSize(10 * MIB, 4096, sha1, 0, false)).isEqualTo(10_330_112);
    assertThat(AvbTreeGeometry.maxImageSize(10 * MIB, 4096, sha1, 2, false)).isEqualTo(10_235_904);
    assertThat(AvbTreeGeometry.maxImageSize(10 * MIB, 4096, sha1, 2, true)).isEqualTo(10_416_128);
    assertThat(AvbTreeGeometry.maxImageSize(2 * MIB, 4096, sha1, 0, false)).isEqualTo(2_007_040);
    // AVB.md lists 1982464 here, from a stand-in for the fec binary that left out libfec's
    // 4096-byte header; libfec's fec_ecc_get_size (and the 10 MiB AOSP figure above) include it.
    assertThat(AvbTreeGeometry.maxImageSize(2 * MIB, 4096, sha1, 2, false)).isEqualTo(1_978_368);
    assertThat(AvbTreeGeometry.maxImageSize(0, 4096, sha1, 2, false)).isZero();
    assertThat(AvbTreeGeometry.maxImageSize(64 * 1024, 4096, sha1, 2, false)).isZero();
  }

  @Test
  void refusesWhatCannotBeLaidOut() {
    assertThatThrownBy(() -> AvbTreeGeometry.of(5000, 4096, HashAlgorithm.SHA256, 0))
        .isInstanceOf(VerityParameterException.class)
        .hasMessage(
            "image size: 5000 (expected: a non-negative multiple of the block size 4096;"
                + " the caller pads the image)");
    assertThatThrownBy(() -> AvbTreeGeometry.of(4096, 3000, HashAlgorithm.SHA256, 0))
        .isInstanceOf(VerityParameterException.class)
        .hasMessageContaining("block size: 3000");
    assertThatThrownBy(() -> AvbTreeGeometry.of(4096, 4096, HashAlgorithm.SHA256, 1))
        .isInstanceOf(VerityParameterException.class)
        .hasMessageContaining("FEC roots: 1");
    assertThatThrownBy(() -> AvbTreeGeometry.of(4096, 4096, HashAlgorithm.SHA256, 25))
        .hasMessageContaining("FEC roots: 25");
    assertThatThrownBy(() -> AvbTreeGeometry.fecSize(4096, 0)).hasMessageContaining("FEC roots: 0");
  }

  @Test
  void aDescriptorsGeometryMustBeConsistent() {
    // as a hashtree descriptor gives it: the AOSP vector's values
    AvbTreeGeometry g =
        new AvbTreeGeometry(1_052_672, 4096, HashAlgorithm.SHA1, 16384, 2, 1_069_056, 16384);
    assertThat(g).isEqualTo(AvbTreeGeometry.of(1_052_672, 4096, HashAlgorithm.SHA1, 2));
    assertThatThrownBy(
            () ->
                new AvbTreeGeometry(
                    1_052_672, 4096, HashAlgorithm.SHA1, 12288, 2, 1_069_056, 16384))
        .isInstanceOf(VerityParameterException.class)
        .hasMessage(
            "tree size: 12288 (expected: 16384 for 1052672 bytes in 4096-byte blocks of sha1)");
    assertThatThrownBy(
            () ->
                new AvbTreeGeometry(1_052_672, 4096, HashAlgorithm.SHA1, 16384, 2, 1_069_056, 8192))
        .hasMessage(
            "FEC size: 8192 (expected: 16384 for 2 roots over 1069056 bytes in 4096-byte blocks)");
    assertThatThrownBy(
            () ->
                new AvbTreeGeometry(
                    1_052_672, 4096, HashAlgorithm.SHA1, 16384, 2, 1_060_000, 16384))
        .hasMessageStartingWith("FEC offset: 1060000 (expected: after the tree");
    // FEC further away covers more (the gap reads as zeros): 512 blocks, 3 rounds of 231
    AvbTreeGeometry far =
        new AvbTreeGeometry(1_052_672, 4096, HashAlgorithm.SHA1, 16384, 24, 2 * MIB, 3 * 24 * 4096);
    assertThat(far.end()).isEqualTo(2 * MIB + 3 * 24 * 4096);
  }

  @Test
  void treeSizeRoundsAPartialBlockUp() {
    // calc_max_image_size sizes the tree on a partition that need not be a block multiple
    assertThat(AvbTreeGeometry.treeSize(4097, 4096, HashAlgorithm.SHA256)).isEqualTo(4096);
    assertThat(AvbTreeGeometry.treeSize(4096, 4096, HashAlgorithm.SHA256)).isZero();
  }
}
