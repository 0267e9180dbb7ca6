package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.jverity.testing.TestImage;

/**
 * What the corruption policy does with a corrupt block: counts it once, and applies a fail-closed
 * mode before any listener hears of it. "Defect N" is the read path v2 review's numbering (issue
 * 6).
 */
class CorruptionPolicyTest {
  private static final int BS = 4096;

  /** Defect 3: a listener that throws disabled fail-closed; the mode is now applied first. */
  @Test
  void aThrowingListenerCannotDisableFailClosed() throws Exception {
    TestImage im = TestImage.random(64, BS, 6);
    im.data()[3 * BS] ^= 1;
    CorruptionListener hostile =
        new CorruptionListener() {
          @Override
          public void corrupted(CorruptBlockException e) {
            throw new IllegalStateException("listener bug");
          }

          @Override
          public void failedClosed(CorruptionMode mode, CorruptBlockException cause) {
            throw new IllegalStateException("listener bug");
          }
        };
    for (CorruptionMode mode :
        new CorruptionMode[] {CorruptionMode.RESTART, CorruptionMode.PANIC}) {
      try (VerifiedReader r =
          Readers.open(
              im,
              im.dataDevice(),
              im.hashDevice(),
              ReaderOptions.DEFAULTS.withMode(mode).withListener(hostile))) {
        assertThatThrownBy(() -> r.read(3 * BS, BS)).isInstanceOf(CorruptBlockException.class);
        assertThat(r.failedClosed()).isTrue();
        assertThatThrownBy(() -> r.read(0, BS)).isInstanceOf(FailedClosedException.class);
      }
    }
  }

  /** Defect 8: a corruption found during a large scheduled read is counted once. */
  @Test
  void aCorruptionInALargeReadIsCountedOnce() throws Exception {
    TestImage im = TestImage.random(1024, BS, 11);
    im.data()[700 * BS + 1] ^= 1;
    try (VerifiedReader r =
            Readers.open(im, im.dataDevice(), im.hashDevice(), ReaderOptions.DEFAULTS);
        VerificationScheduler s = new VerificationScheduler(r, new HashingPool(2))) {
      byte[] dst = new byte[1024 * BS];
      assertThatThrownBy(() -> s.read(0, dst, 0, dst.length))
          .isInstanceOfSatisfying(
              CorruptBlockException.class, e -> assertThat(e.dataBlock()).isEqualTo(700));
      assertThat(r.corruptionCount()).isEqualTo(1);
      assertThat(Arrays.copyOf(dst, 700 * BS))
          .isEqualTo(Arrays.copyOf(im.data(), 700 * BS)); // verified prefix
    }
  }
}
