package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.jverity.hash.HashAlgorithm;
import org.jverity.testing.Images;
import org.jverity.testing.TestImage;
import org.jverity.tree.Area;

/**
 * Every combination of the reader's options (mode × check_at_most_once × ignore_zero_blocks), read
 * through the reader and the scheduler, against an image with a tampered data block, a tampered
 * zero block and a tampered hash block: a verified read never returns a tampered byte unless the
 * mode is IGNORE, whatever the other options, the first time or the second.
 */
class ReaderOptionsMatrixTest {
  private static final int BS = 4096;
  private static final int BLOCKS = 600; // 5 level-0 hash blocks, 2 levels
  private static final int ZERO = 7; // a zero block in the image, tampered on the device
  private static final int TAMPERED = 300; // a random block, tampered on the device
  private static final int UNDER_BAD_HASH = 520; // under the tampered level-0 hash block 4

  static Stream<Arguments> options() {
    List<Arguments> all = new ArrayList<>();
    for (CorruptionMode mode : CorruptionMode.values()) {
      for (boolean once : new boolean[] {false, true}) {
        for (boolean zeros : new boolean[] {false, true}) {
          for (boolean scheduled : new boolean[] {false, true}) {
            all.add(Arguments.of(mode, once, zeros, scheduled));
          }
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} check_at_most_once={1} ignore_zero_blocks={2} scheduler={3}")
  @MethodSource("options")
  void noTamperedByteIsReturnedUnlessIgnoring(
      CorruptionMode mode, boolean once, boolean zeros, boolean scheduled) throws Exception {
    byte[] original = Images.random(11, BLOCKS * BS);
    Arrays.fill(original, ZERO * BS, (ZERO + 1) * BS, (byte) 0);
    TestImage im = TestImage.of(original.clone(), BS, HashAlgorithm.SHA256, 11);
    im.data()[ZERO * BS + 5] = 1;
    im.data()[TAMPERED * BS + 100] ^= 1;
    long level0Block4 = im.hash().length / BS - 1; // the last hash block: level 0's last
    im.hash()[(int) (level0Block4 * BS + 10)] ^= 1;
    ReaderOptions o =
        ReaderOptions.DEFAULTS.withMode(mode).withCheckAtMostOnce(once).withIgnoreZeroBlocks(zeros);
    try (VerifiedReader r =
            VerifiedReader.open(
                im.params(),
                im.dataDevice(),
                im.hashDevice(),
                im.root(),
                new HashBlockCache(1 << 20),
                o);
        VerificationScheduler s = new VerificationScheduler(r, new HashingPool(2))) {
      VerifiedSource src = scheduled ? s : r;
      for (int pass = 0;
          pass < 2;
          pass++) { // the second pass is where check_at_most_once would skip
        if (r.failedClosed()) {
          assertThatThrownBy(() -> src.read(0, BS)).isInstanceOf(FailedClosedException.class);
          continue;
        }
        expectBlock(src, mode, ZERO, zeros ? new byte[BS] : null, im.data());
        expectBlock(src, mode, TAMPERED, null, im.data());
        expectBlock(src, mode, UNDER_BAD_HASH, null, im.data());
        if (!r.failedClosed()) {
          assertThat(src.read(3 * BS, BS)).isEqualTo(Arrays.copyOfRange(original, 3 * BS, 4 * BS));
        }
      }
      assertThat(r.corruptionCount()).isPositive();
      assertThat(r.status()).isEqualTo('C');
    }
  }

  /**
   * Reads one tampered block: IGNORE returns the device's bytes (or zeros for an ignored zero
   * block); every other mode fails naming a block (or fails closed); {@code zerosWanted} non-null
   * means the block reads as those zeros in every mode.
   */
  private static void expectBlock(
      VerifiedSource src, CorruptionMode mode, int block, byte[] zerosWanted, byte[] device)
      throws Exception {
    byte[] dst = new byte[BS];
    Arrays.fill(dst, (byte) 0x77);
    if (zerosWanted != null) {
      src.read((long) block * BS, dst, 0, BS);
      assertThat(dst).isEqualTo(zerosWanted);
      return;
    }
    if (mode == CorruptionMode.IGNORE) {
      src.read((long) block * BS, dst, 0, BS);
      assertThat(dst).isEqualTo(Arrays.copyOfRange(device, block * BS, (block + 1) * BS));
      return;
    }
    try {
      src.read((long) block * BS, dst, 0, BS);
      throw new AssertionError("block " + block + " read without error in mode " + mode);
    } catch (CorruptBlockException e) {
      assertThat(e.dataBlock()).isEqualTo(block);
      assertThat(e.area()).isEqualTo(block == UNDER_BAD_HASH ? Area.HASH : Area.DATA);
      assertThat(dst).as("unverified bytes are cleared").containsOnly(0);
    } catch (FailedClosedException e) {
      assertThat(mode.failsClosed()).isTrue();
      assertThat(dst).as("refused before any byte was read").containsOnly(0x77);
    }
  }
}
