package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.jverity.hash.HashAlgorithm;
import org.jverity.testing.Images;
import org.jverity.testing.TestImage;

/**
 * {@link VerifiedReader#isZeroBlock}: what a server reports as zeros (and as holes under
 * ignore_zero_blocks).
 */
class ZeroBlockTest {
  private static final int BS = 4096;

  @Test
  void zeroBlocksAreKnownByTheirTrustedDigestWithOrWithoutIgnoreZeroBlocks() throws Exception {
    byte[] data = Images.random(41, 300 * BS);
    Arrays.fill(data, 10 * BS, 20 * BS, (byte) 0);
    TestImage im = TestImage.of(data, BS, HashAlgorithm.SHA256, 41);
    im.data()[15 * BS] = 1; // the device lies; the digest still says zero
    try (VerifiedReader r =
            VerifiedReader.open(
                im.params(),
                im.dataDevice(),
                im.hashDevice(),
                im.root(),
                new HashBlockCache(1 << 20),
                ReaderOptions.DEFAULTS.withIgnoreZeroBlocks(true));
        VerifiedReader plain =
            VerifiedReader.open(
                im.params(),
                im.dataDevice(),
                im.hashDevice(),
                im.root(),
                new HashBlockCache(1 << 20),
                ReaderOptions.DEFAULTS)) {
      for (int b = 0; b < 300; b++) {
        assertThat(r.isZeroBlock(b)).as("block %d", b).isEqualTo(b >= 10 && b < 20);
        assertThat(plain.isZeroBlock(b)).as("block %d", b).isEqualTo(b >= 10 && b < 20);
      }
      assertThatThrownBy(() -> r.isZeroBlock(300)).isInstanceOf(IndexOutOfBoundsException.class);
      assertThat(r.ignoresZeroBlocks()).isTrue();
      assertThat(plain.ignoresZeroBlocks()).isFalse();
      assertThatThrownBy(() -> plain.read(15 * BS, BS)) // a zero digest is no licence to skip it
          .isInstanceOf(CorruptBlockException.class);
    }
    im.hash()[BS + 10 * 32] ^= 1; // block 10's digest in level-0 block 1: the walk must catch it
    try (VerifiedReader r =
        VerifiedReader.open(
            im.params(),
            im.dataDevice(),
            im.hashDevice(),
            im.root(),
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS.withIgnoreZeroBlocks(true))) {
      assertThatThrownBy(() -> r.isZeroBlock(10)).isInstanceOf(CorruptBlockException.class);
    }
  }

  /**
   * Defect 1 (issue 6): the zero-digest path set the "checked" bit, so a second read returned the
   * device's bytes.
   */
  @Test
  void checkAtMostOnceWithIgnoreZeroBlocksNeverReturnsTamperedBytes() throws Exception {
    byte[] data = new byte[64 * BS]; // all zero blocks
    TestImage im = TestImage.of(data, BS, HashAlgorithm.SHA256, 1);
    im.data()[5 * BS + 17] = 42; // tampered, but its digest says "zero block"
    try (VerifiedReader r =
        Readers.open(
            im,
            im.dataDevice(),
            im.hashDevice(),
            ReaderOptions.DEFAULTS.withCheckAtMostOnce(true).withIgnoreZeroBlocks(true))) {
      assertThat(r.read(5 * BS, BS)).containsOnly(0);
      assertThat(r.read(5 * BS, BS)).containsOnly(0); // was 42 at byte 17 on the second read
    }
  }
}
