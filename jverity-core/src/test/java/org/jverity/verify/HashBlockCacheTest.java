package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.jverity.hash.HashAlgorithm;
import org.jverity.testing.DeviceWrapper;
import org.jverity.testing.Images;
import org.jverity.testing.TestImage;
import org.jverity.tree.Area;

/**
 * The hash block cache, by the state it is in: empty, holding two roots of one image, over its
 * budget, missed by many threads at once, and after a bad load. "Defect N" is the read path v2
 * review's numbering (issue 6).
 */
class HashBlockCacheTest {
  private static final int BS = 4096;

  /** A cache nobody has read through yet. */
  @Nested
  class Empty {
    private final HashBlockCache cache = new HashBlockCache(1 << 20);

    @Test
    void holdsNothingAndCountsNothing() {
      assertThat(cache.stats()).isEqualTo(new CacheStats(1 << 20, 0, 0, 0, 0, 0, 0, 0, 0));
      assertThat(cache.capacityBytes()).isEqualTo(1 << 20);
    }

    @Test
    void aBudgetBelowOneByteIsRefused() {
      assertThatThrownBy(() -> new HashBlockCache(0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("cache size: 0 (expected: at least 1 byte)");
    }

    @Test
    void theFirstReadMissesAndLoadsEachBlockOfItsPathOnce() throws Exception {
      TestImage im = TestImage.random(600, BS, 18);
      try (VerifiedReader r =
          VerifiedReader.open(
              im.params(),
              im.dataDevice(),
              im.hashDevice(),
              im.root(),
              cache,
              ReaderOptions.DEFAULTS)) {
        assertThat(r.read(0, BS)).isEqualTo(Arrays.copyOf(im.data(), BS));
        CacheStats st = cache.stats();
        assertThat(st.images()).isEqualTo(1);
        assertThat(st.loads()).isEqualTo(2); // the top block and level-0 block 0
        assertThat(st.cachedBlocks()).isEqualTo(2);
        assertThat(st.cachedBytes()).isEqualTo(2 * BS);
        assertThat(st.evictions()).isZero();
      }
      assertThat(cache.stats().images()).isZero();
    }
  }

  /** Readers of one image, with the same root hash or different ones. */
  @Nested
  class TwoRoots {
    /**
     * Two readers of one image with different roots share a cache but never each other's verified
     * marks.
     */
    @Test
    void aBlockVerifiedAgainstOneRootIsNotVerifiedForAnother() throws Exception {
      TestImage im = TestImage.random(600, BS, 14);
      HashBlockCache cache = new HashBlockCache(1 << 20);
      byte[] wrongRoot = im.root().clone();
      wrongRoot[0] ^= 1;
      var hash = im.hashDevice();
      try (VerifiedReader good =
              VerifiedReader.open(
                  im.params(), im.dataDevice(), hash, im.root(), cache, ReaderOptions.DEFAULTS);
          VerifiedReader bad =
              VerifiedReader.open(
                  im.params(), im.dataDevice(), hash, wrongRoot, cache, ReaderOptions.DEFAULTS)) {
        assertThat(good.read(0, 600 * BS)).isEqualTo(im.data());
        assertThatThrownBy(() -> bad.read(0, BS)).isInstanceOf(CorruptBlockException.class);
        assertThat(cache.stats().images()).isEqualTo(2);
      }
      assertThat(cache.stats().images()).isZero();
      assertThat(cache.stats().cachedBytes()).isZero();
    }

    /**
     * Two readers of one image share its cache space; one closing its devices never breaks the
     * other.
     */
    @Test
    void readersOfOneImageShareBlocksButEachLoadsFromItsOwnDevice() throws Exception {
      TestImage im = TestImage.random(3000, BS, 17);
      HashBlockCache cache = new HashBlockCache(8 << 10); // two blocks: loads keep happening
      var hash1 = new DeviceWrapper.Closable(im.hashDevice());
      var hash2 = new DeviceWrapper.Closable(im.hashDevice());
      VerifiedReader r1 =
          VerifiedReader.open(
              im.params(), im.dataDevice(), hash1, im.root(), cache, ReaderOptions.DEFAULTS);
      try (VerifiedReader r2 =
          VerifiedReader.open(
              im.params(), im.dataDevice(), hash2, im.root(), cache, ReaderOptions.DEFAULTS)) {
        assertThat(r1.read(0, BS)).isEqualTo(Arrays.copyOf(im.data(), BS));
        assertThat(cache.stats().images()).isEqualTo(1); // the same image: one space
        hash1.close();
        r1.close();
        for (int b = 0; b < 3000; b += 97) {
          assertThat(r2.read((long) b * BS, BS))
              .isEqualTo(Arrays.copyOfRange(im.data(), b * BS, (b + 1) * BS));
        }
      }
    }
  }

  /**
   * Issue 17, defect 5: readers of one root whose other parameters differ. A hash block's meaning
   * depends on every parameter that says where it sits and what it covers, not only on the root: a
   * reader whose parameters do not verify against its root must fail with a shared cache as it
   * fails without one.
   */
  @Nested
  class OtherParameters {
    @Test
    void aReaderWithTheSameRootButOtherBlockSizesDoesNotTakeAnotherReadersBlocks()
        throws Exception {
      TestImage im = TestImage.random(8, BS, 178); // one level: the top block is all the tree
      // The same tree string either way (one level of one block at 0): only the size tells them
      // apart
      var wrong = im.params().toBuilder().hashBlockSize(512).build();
      var hash = im.hashDevice();
      try (VerifiedReader alone =
          VerifiedReader.open(
              wrong,
              im.dataDevice(),
              hash,
              im.root(),
              new HashBlockCache(1 << 20),
              ReaderOptions.DEFAULTS)) {
        assertThatThrownBy(() -> alone.read(0, BS)).isInstanceOf(CorruptBlockException.class);
      }
      HashBlockCache cache = new HashBlockCache(1 << 20);
      try (VerifiedReader right =
          VerifiedReader.open(
              im.params(), im.dataDevice(), hash, im.root(), cache, ReaderOptions.DEFAULTS)) {
        assertThat(right.read(0, 8 * BS)).isEqualTo(im.data()); // its blocks are cached, verified
        try (VerifiedReader other =
            VerifiedReader.open(
                wrong, im.dataDevice(), hash, im.root(), cache, ReaderOptions.DEFAULTS)) {
          assertThatThrownBy(() -> other.read(0, BS)).isInstanceOf(CorruptBlockException.class);
          assertThat(cache.stats().images()).isEqualTo(2);
        }
      }
    }
  }

  /** More hash blocks in use than the budget holds. */
  @Nested
  class OverBudget {
    /** The cache is one budget over several images read at the same time. */
    @Test
    void twoImagesReadConcurrentlyShareOneBudget() throws Exception {
      TestImage a = TestImage.random(3000, BS, 15);
      TestImage b = TestImage.of(Images.random(16, 2000 * 1024), 1024, HashAlgorithm.SHA1, 16);
      HashBlockCache cache = new HashBlockCache(16 << 10); // a few blocks for both
      try (VerifiedReader ra =
              VerifiedReader.open(
                  a.params(),
                  a.dataDevice(),
                  a.hashDevice(),
                  a.root(),
                  cache,
                  ReaderOptions.DEFAULTS);
          VerifiedReader rb =
              VerifiedReader.open(
                  b.params(),
                  b.dataDevice(),
                  b.hashDevice(),
                  b.root(),
                  cache,
                  ReaderOptions.DEFAULTS)) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] threads = new Thread[8];
        for (int i = 0; i < threads.length; i++) {
          TestImage im = i % 2 == 0 ? a : b;
          VerifiedReader r = i % 2 == 0 ? ra : rb;
          long seed = i;
          threads[i] =
              Thread.ofPlatform()
                  .start(
                      () -> {
                        java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
                        try {
                          for (int k = 0; k < 2000; k++) {
                            int len = 1 + rnd.nextInt(3 * im.blockSize());
                            int off = rnd.nextInt(im.data().length - len);
                            if (!Arrays.equals(
                                r.read(off, len), 0, len, im.data(), off, off + len)) {
                              throw new AssertionError("wrong bytes at " + off);
                            }
                          }
                        } catch (Throwable t) {
                          failure.set(t);
                        }
                      });
        }
        for (Thread t : threads) {
          t.join();
        }
        assertThat(failure.get()).isNull();
        CacheStats st = cache.stats();
        assertThat(st.images()).isEqualTo(2);
        assertThat(st.cachedBytes()).isLessThanOrEqualTo((16 << 10) + 8 * BS);
        assertThat(st.evictions()).isPositive();
      }
    }

    /**
     * Defect 10: thousands of virtual-thread readers at once: every read right, no per-thread
     * buffers.
     */
    @Test
    void tenThousandVirtualThreadReadersShareBoundedState() throws Exception {
      TestImage im = TestImage.random(2048, BS, 12);
      try (VerifiedReader r =
              VerifiedReader.open(
                  im.params(),
                  im.dataDevice(),
                  im.hashDevice(),
                  im.root(),
                  new HashBlockCache(64 << 10),
                  ReaderOptions.DEFAULTS);
          VerificationScheduler s = new VerificationScheduler(r, new HashingPool(2))) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] threads = new Thread[10_000];
        for (int i = 0; i < threads.length; i++) {
          int block = (int) ((i * 2654435761L) % 2048);
          threads[i] =
              Thread.ofVirtual()
                  .start(
                      () -> {
                        try {
                          byte[] got = s.read((long) block * BS, BS);
                          if (!Arrays.equals(got, 0, BS, im.data(), block * BS, (block + 1) * BS)) {
                            throw new AssertionError("block " + block + " read wrong bytes");
                          }
                        } catch (Throwable t) {
                          failure.set(t);
                        }
                      });
        }
        for (Thread t : threads) {
          t.join();
        }
        assertThat(failure.get()).isNull();
        assertThat(r.cacheStats().cachedBytes()).isLessThanOrEqualTo((64 << 10) + 2 * BS);
      }
    }
  }

  /** Many threads missing the same block at once. */
  @Nested
  class ConcurrentMiss {
    /** Defect 5: concurrent misses of one hash block cause one read of it. */
    @Test
    void concurrentMissesOfOneHashBlockReadItOnce() throws Exception {
      TestImage im = TestImage.random(600, BS, 9);
      var counting = new DeviceWrapper.Counting(new DeviceWrapper.Slow(im.hashDevice(), 20_000));
      try (VerifiedReader r = Readers.open(im, im.dataDevice(), counting, ReaderOptions.DEFAULTS)) {
        Thread[] threads = new Thread[32];
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < threads.length; i++) {
          int block = i;
          threads[i] =
              Thread.ofVirtual()
                  .start(
                      () -> {
                        try {
                          go.await();
                          assertThat(r.read((long) block * BS, BS))
                              .isEqualTo(
                                  Arrays.copyOfRange(im.data(), block * BS, (block + 1) * BS));
                        } catch (Throwable t) {
                          failure.set(t);
                        }
                      });
        }
        go.countDown();
        for (Thread t : threads) {
          t.join();
        }
        assertThat(failure.get()).isNull();
        assertThat(counting.reads.get())
            .isEqualTo(2); // the top block and level-0 block 0, once each
        assertThat(r.cacheStats().loads()).isEqualTo(2);
      }
    }
  }

  /** A hash block that loads with the wrong bytes, once or for good. */
  @Nested
  class BadLoad {
    /** Defect 4: a transient bad read of a hash block is rechecked, not cached as corruption. */
    @Test
    void aHashBlockIsRecheckedBeforeItIsBlamedAndTheGoodCopyIsCached() throws Exception {
      TestImage im = TestImage.random(600, BS, 7);
      long level0First = 1; // hash block 0 is the top level, 1.. are level 0
      var flaky = new DeviceWrapper.Flaky(im.hashDevice(), level0First * BS + 100, 1);
      try (VerifiedReader r = Readers.open(im, im.dataDevice(), flaky, ReaderOptions.DEFAULTS)) {
        assertThat(r.read(0, BS)).isEqualTo(Arrays.copyOf(im.data(), BS));
        assertThat(r.read(BS, BS)).isEqualTo(Arrays.copyOfRange(im.data(), BS, 2 * BS));
        assertThat(r.corruptionCount()).isZero();
        assertThat(r.status()).isEqualTo('V');
      }
    }

    /** Defect 4: a hash block that stays bad is reported, and its cached copy is dropped. */
    @Test
    void aBadHashBlockIsReportedAndNotKept() throws Exception {
      TestImage im = TestImage.random(600, BS, 8);
      var flaky =
          new DeviceWrapper.Flaky(im.hashDevice(), BS + 100, 2); // bad on the load and the recheck
      try (VerifiedReader r = Readers.open(im, im.dataDevice(), flaky, ReaderOptions.DEFAULTS)) {
        assertThatThrownBy(() -> r.read(0, BS))
            .isInstanceOfSatisfying(
                CorruptBlockException.class,
                e -> {
                  assertThat(e.area()).isEqualTo(Area.HASH);
                  assertThat(e.block()).isEqualTo(1);
                  assertThat(e.level()).isZero();
                });
        assertThat(r.cacheStats().invalidations()).isEqualTo(1);
        assertThat(r.read(0, BS))
            .isEqualTo(Arrays.copyOf(im.data(), BS)); // the device is good again
      }
    }
  }
}
