package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.jverity.io.MemoryDevice;

/** {@link VerifiedSource#stats()}: the reader's counters, the scheduler's added, one snapshot. */
class SourceStatsTest {
  @Test
  @DisplayName(
      "a scheduler's stats are its reader's corruptions and cache with its own inline and pooled counts")
  void schedulerStatsAddItsCountsToTheReaders() throws Exception {
    VerifiedReaderTest.Image im = VerifiedReaderTest.image(64, 12, 12, 2, false, 5);
    byte[] data = im.data().clone();
    data[10 * 4096 + 3] ^= 1; // block 10 no longer verifies
    VerifiedReader reader =
        VerifiedReader.open(
            im.params(),
            new MemoryDevice("data", data),
            new MemoryDevice("hash", im.hash()),
            im.root(),
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS);
    try (VerificationScheduler scheduler = new VerificationScheduler(reader, new HashingPool(1))) {
      assertThat(scheduler.stats().status()).isEqualTo('V');

      scheduler.read(0, new byte[4096], 0, 4096, IoClass.BEST_EFFORT); // cold: the pool
      scheduler.read(4096, new byte[4096], 0, 4096, IoClass.BEST_EFFORT); // cached: inline
      assertThatThrownBy(
              () -> scheduler.read(10 * 4096, new byte[4096], 0, 4096, IoClass.BEST_EFFORT))
          .isInstanceOf(CorruptBlockException.class);

      SourceStats s = scheduler.stats();
      assertThat(s.corruptions()).isEqualTo(1).isEqualTo(reader.corruptionCount());
      assertThat(s.status()).isEqualTo('C');
      assertThat(s.failedClosed()).isFalse();
      assertThat(s.repaired()).isZero();
      assertThat(s.inlineReads()).isEqualTo(scheduler.inlineRequests()).isPositive();
      assertThat(s.pooledReads()).isEqualTo(scheduler.pooledRequests()).isPositive();
      assertThat(s.fallbacks()).isEqualTo(scheduler.fallbacks());
      assertThat(s.cache().capacityBytes()).isEqualTo(1 << 20);
      assertThat(s.cache().misses()).isEqualTo(reader.cacheStats().misses()).isPositive();
      assertThat(reader.stats().inlineReads()).as("a reader alone schedules nothing").isZero();
      assertThat(reader.stats().corruptions()).isEqualTo(1);
    } finally {
      reader.close();
    }
  }
}
