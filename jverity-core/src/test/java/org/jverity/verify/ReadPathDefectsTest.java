package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.jverity.hash.HashAlgorithm;
import org.jverity.testing.DeviceWrapper;
import org.jverity.testing.Images;
import org.jverity.testing.TestImage;
import org.jverity.tree.Area;
import org.junit.jupiter.api.Test;

/** One regression test per defect the read path v2 review found (issue 6). */
class ReadPathDefectsTest {
  private static final int BS = 4096;

  private static VerifiedReader reader(TestImage im, org.jverity.io.BlockDevice data, org.jverity.io.BlockDevice hash,
      ReaderOptions o) throws IOException {
    return VerifiedReader.open(im.params(), data, hash, im.root(), new HashBlockCache(1 << 20), o);
  }

  /** Defect 1: the zero-digest path set the "checked" bit, so a second read returned the device's bytes. */
  @Test
  void checkAtMostOnceWithIgnoreZeroBlocksNeverReturnsTamperedBytes() throws Exception {
    byte[] data = new byte[64 * BS]; // all zero blocks
    TestImage im = TestImage.of(data, BS, HashAlgorithm.SHA256, 1);
    im.data()[5 * BS + 17] = 42; // tampered, but its digest says "zero block"
    try (VerifiedReader r = reader(im, im.dataDevice(), im.hashDevice(),
        ReaderOptions.DEFAULTS.withCheckAtMostOnce(true).withIgnoreZeroBlocks(true))) {
      assertThat(r.read(5 * BS, BS)).containsOnly(0);
      assertThat(r.read(5 * BS, BS)).containsOnly(0); // was 42 at byte 17 on the second read
    }
  }

  /** Defect 3: arguments are checked before any work: no prefetch, no load, no spin on overflow. */
  @Test
  void badArgumentsAreRefusedBeforeAnyWork() throws Exception {
    TestImage im = TestImage.random(600, BS, 2);
    DeviceWrapper.Counting hash = new DeviceWrapper.Counting(im.hashDevice());
    try (VerifiedReader r = reader(im, im.dataDevice(), hash, ReaderOptions.DEFAULTS);
        VerificationScheduler s = new VerificationScheduler(r, new HashingPool(2))) {
      assertThatThrownBy(() -> s.read(Long.MAX_VALUE - 10, new byte[BS], 0, BS)).isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> s.read(-BS, new byte[BS], 0, BS)).isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> s.read(r.size(), new byte[BS], 0, 1)).isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> s.read(0, new byte[BS], 1, BS)).isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> s.read(0, new byte[BS], -1, 10)).isInstanceOf(IndexOutOfBoundsException.class);
      assertThat(hash.reads.get()).isZero();
      assertThat(r.cacheStats().cachedBlocks()).isZero();
    }
  }

  /**
   * Defect 3: an interrupted large read returned while pool threads still wrote into the caller's
   * array; a later read into the same array then held bytes of the earlier range.
   */
  @Test
  void anInterruptedReadNeverWritesTheBufferAfterItThrows() throws Exception {
    TestImage im = TestImage.random(1024, BS, 3);
    var slowData = new DeviceWrapper.Slow(im.dataDevice(), 300); // 300 µs per read: pieces stay in flight
    try (VerifiedReader r = reader(im, slowData, im.hashDevice(), ReaderOptions.DEFAULTS);
        HashingPool pool = new HashingPool(2);
        VerificationScheduler s = new VerificationScheduler(r, pool)) {
      byte[] dst = new byte[2 << 20];
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      byte[][] afterThrow = new byte[1][];
      CountDownLatch started = new CountDownLatch(1);
      Thread reader = Thread.ofPlatform().start(() -> {
        started.countDown();
        try {
          while (true) {
            s.read(0, dst, 0, dst.length, IoClass.BEST_EFFORT);
          }
        } catch (Throwable t) {
          afterThrow[0] = dst.clone(); // the array as the caller sees it when read throws
          thrown.set(t);
        }
      });
      started.await();
      Thread.sleep(30);
      reader.interrupt();
      reader.join(10_000);
      assertThat(thrown.get()).isInstanceOf(InterruptedIOException.class);
      Thread.sleep(100); // were any piece still running, it would write now
      assertThat(dst).isEqualTo(afterThrow[0]);
      for (int at = 0; at < dst.length; at += BS) { // and what it holds is verified data or zeros
        byte[] got = Arrays.copyOfRange(dst, at, at + BS);
        if (!Arrays.equals(got, new byte[BS])) {
          assertThat(got).isEqualTo(Arrays.copyOfRange(im.data(), at, at + BS));
        }
      }
      // The device is not broken for anyone: the same scheduler reads on.
      assertThat(s.read(BS, 3 * BS)).isEqualTo(Arrays.copyOfRange(im.data(), BS, 4 * BS));
    }
  }

  /** Defect 3: close() with reads in flight used to hang them; now they finish and later reads are refused. */
  @Test
  void closeWaitsForReadsInFlightAndLaterReadsAreRefused() throws Exception {
    TestImage im = TestImage.random(512, BS, 4);
    var slowData = new DeviceWrapper.Slow(im.dataDevice(), 200);
    VerifiedReader r = reader(im, slowData, im.hashDevice(), ReaderOptions.DEFAULTS);
    HashingPool pool = new HashingPool(1);
    VerificationScheduler s = new VerificationScheduler(r, pool);
    Thread[] readers = new Thread[4];
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch started = new CountDownLatch(readers.length);
    for (int i = 0; i < readers.length; i++) {
      readers[i] = Thread.ofVirtual().start(() -> {
        started.countDown();
        try {
          for (int k = 0; k < 1000; k++) {
            assertThat(s.read(0, 1 << 20)).isEqualTo(Arrays.copyOf(im.data(), 1 << 20));
          }
        } catch (SourceClosedException expected) {
          // refused after close
        } catch (Throwable t) {
          failure.set(t);
        }
      });
    }
    started.await();
    Thread.sleep(20);
    s.close(); // must return: in-flight reads finish
    for (Thread t : readers) {
      t.join(10_000);
      assertThat(t.isAlive()).isFalse();
    }
    assertThat(failure.get()).isNull();
    assertThatThrownBy(() -> s.read(0, BS)).isInstanceOf(SourceClosedException.class);
    pool.close();
    r.close();
    assertThatThrownBy(() -> r.read(0, BS)).isInstanceOf(SourceClosedException.class);
  }

  /** Defect 3: a scheduler nobody closes leaves no thread behind (the pool's threads end when idle). */
  @Test
  void anIdlePoolEndsItsThreads() throws Exception {
    TestImage im = TestImage.random(256, BS, 5);
    HashingPool pool = new HashingPool(2, 200); // 200 ms idle
    VerificationScheduler s = new VerificationScheduler(reader(im, im.dataDevice(), im.hashDevice(),
        ReaderOptions.DEFAULTS), pool);
    assertThat(s.read(0, 1 << 20)).isEqualTo(Arrays.copyOf(im.data(), 1 << 20));
    assertThat(pool.liveThreads()).isPositive();
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (pool.liveThreads() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(pool.liveThreads()).isZero();
  }

  /** Defect 3: a listener that throws disabled fail-closed; the mode is now applied first. */
  @Test
  void aThrowingListenerCannotDisableFailClosed() throws Exception {
    TestImage im = TestImage.random(64, BS, 6);
    im.data()[3 * BS] ^= 1;
    CorruptionListener hostile = new CorruptionListener() {
      @Override
      public void corrupted(CorruptBlockException e) {
        throw new IllegalStateException("listener bug");
      }

      @Override
      public void failedClosed(CorruptionMode mode, CorruptBlockException cause) {
        throw new IllegalStateException("listener bug");
      }
    };
    for (CorruptionMode mode : new CorruptionMode[] {CorruptionMode.RESTART, CorruptionMode.PANIC}) {
      try (VerifiedReader r = reader(im, im.dataDevice(), im.hashDevice(),
          ReaderOptions.DEFAULTS.withMode(mode).withListener(hostile))) {
        assertThatThrownBy(() -> r.read(3 * BS, BS)).isInstanceOf(CorruptBlockException.class);
        assertThat(r.failedClosed()).isTrue();
        assertThatThrownBy(() -> r.read(0, BS)).isInstanceOf(FailedClosedException.class);
      }
    }
  }

  /** Defect 4: a transient bad read of a hash block is rechecked, not cached as corruption. */
  @Test
  void aHashBlockIsRecheckedBeforeItIsBlamedAndTheGoodCopyIsCached() throws Exception {
    TestImage im = TestImage.random(600, BS, 7);
    long level0First = 1; // hash block 0 is the top level, 1.. are level 0
    var flaky = new DeviceWrapper.Flaky(im.hashDevice(), level0First * BS + 100, 1);
    try (VerifiedReader r = reader(im, im.dataDevice(), flaky, ReaderOptions.DEFAULTS)) {
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
    var flaky = new DeviceWrapper.Flaky(im.hashDevice(), BS + 100, 2); // bad on the load and the recheck
    try (VerifiedReader r = reader(im, im.dataDevice(), flaky, ReaderOptions.DEFAULTS)) {
      assertThatThrownBy(() -> r.read(0, BS)).isInstanceOfSatisfying(CorruptBlockException.class, e -> {
        assertThat(e.area()).isEqualTo(Area.HASH);
        assertThat(e.block()).isEqualTo(1);
        assertThat(e.level()).isZero();
      });
      assertThat(r.cacheStats().invalidations()).isEqualTo(1);
      assertThat(r.read(0, BS)).isEqualTo(Arrays.copyOf(im.data(), BS)); // the device is good again
    }
  }

  /** Defect 5: concurrent misses of one hash block cause one read of it. */
  @Test
  void concurrentMissesOfOneHashBlockReadItOnce() throws Exception {
    TestImage im = TestImage.random(600, BS, 9);
    var counting = new DeviceWrapper.Counting(new DeviceWrapper.Slow(im.hashDevice(), 20_000));
    try (VerifiedReader r = reader(im, im.dataDevice(), counting, ReaderOptions.DEFAULTS)) {
      Thread[] threads = new Thread[32];
      CountDownLatch go = new CountDownLatch(1);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      for (int i = 0; i < threads.length; i++) {
        int block = i;
        threads[i] = Thread.ofVirtual().start(() -> {
          try {
            go.await();
            assertThat(r.read((long) block * BS, BS)).isEqualTo(Arrays.copyOfRange(im.data(), block * BS, (block + 1) * BS));
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
      assertThat(counting.reads.get()).isEqualTo(2); // the top block and level-0 block 0, once each
      assertThat(r.cacheStats().loads()).isEqualTo(2);
    }
  }

  /** Defect 8: a failed prefetch is counted; the real read reports the error itself. */
  @Test
  void failedPrefetchesAreCounted() throws Exception {
    TestImage im = TestImage.random(600, BS, 10);
    var failing = new DeviceWrapper.Failing(im.hashDevice(), 3 * BS, 4 * BS); // level-0 block 2
    try (VerifiedReader r = reader(im, im.dataDevice(), failing, ReaderOptions.DEFAULTS);
        VerificationScheduler s = new VerificationScheduler(r, new HashingPool(2))) {
      s.setPrefetchCluster(2 << 20); // the cluster covers data blocks 0..511: level-0 blocks 0..3
      assertThat(s.read(0, BS)).isEqualTo(Arrays.copyOf(im.data(), BS));
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (s.failedPrefetches() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(s.failedPrefetches()).isEqualTo(1);
      assertThatThrownBy(() -> s.read(300L * BS, BS)).isInstanceOf(IOException.class)
          .isNotInstanceOf(CorruptBlockException.class);
      assertThat(r.corruptionCount()).isZero();
    }
  }

  /** Defect 8: a corruption found during a large scheduled read is counted once. */
  @Test
  void aCorruptionInALargeReadIsCountedOnce() throws Exception {
    TestImage im = TestImage.random(1024, BS, 11);
    im.data()[700 * BS + 1] ^= 1;
    try (VerifiedReader r = reader(im, im.dataDevice(), im.hashDevice(), ReaderOptions.DEFAULTS);
        VerificationScheduler s = new VerificationScheduler(r, new HashingPool(2))) {
      byte[] dst = new byte[1024 * BS];
      assertThatThrownBy(() -> s.read(0, dst, 0, dst.length)).isInstanceOfSatisfying(CorruptBlockException.class,
          e -> assertThat(e.dataBlock()).isEqualTo(700));
      assertThat(r.corruptionCount()).isEqualTo(1);
      assertThat(Arrays.copyOf(dst, 700 * BS)).isEqualTo(Arrays.copyOf(im.data(), 700 * BS)); // verified prefix
    }
  }

  /** Defect 10: thousands of virtual-thread readers at once: every read right, no per-thread buffers. */
  @Test
  void tenThousandVirtualThreadReadersShareBoundedState() throws Exception {
    TestImage im = TestImage.random(2048, BS, 12);
    try (VerifiedReader r = VerifiedReader.open(im.params(), im.dataDevice(), im.hashDevice(), im.root(),
            new HashBlockCache(64 << 10), ReaderOptions.DEFAULTS);
        VerificationScheduler s = new VerificationScheduler(r, new HashingPool(2))) {
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread[] threads = new Thread[10_000];
      for (int i = 0; i < threads.length; i++) {
        int block = (int) ((i * 2654435761L) % 2048);
        threads[i] = Thread.ofVirtual().start(() -> {
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

  /** Every exit path zeroes what did not verify: an I/O error mid-request leaves no device bytes. */
  @Test
  void anIoErrorMidRequestLeavesOnlyVerifiedBytesOrZeros() throws Exception {
    TestImage im = TestImage.random(256, BS, 13);
    var failing = new DeviceWrapper.Failing(im.dataDevice(), 100L * BS, 101L * BS);
    try (VerifiedReader r = reader(im, failing, im.hashDevice(), ReaderOptions.DEFAULTS)) {
      byte[] dst = new byte[256 * BS];
      Arrays.fill(dst, (byte) 0x55);
      assertThatThrownBy(() -> r.read(0, dst, 0, dst.length)).isInstanceOf(IOException.class);
      for (int at = 0; at < dst.length; at += BS) {
        byte[] got = Arrays.copyOfRange(dst, at, at + BS);
        assertThat(Arrays.equals(got, new byte[BS]) || Arrays.equals(got, Arrays.copyOfRange(im.data(), at, at + BS)))
            .as("block %d", at / BS).isTrue();
      }
      assertThat(r.corruptionCount()).isZero();
    }
  }

  /** Two readers of one image with different roots share a cache but never each other's verified marks. */
  @Test
  void aBlockVerifiedAgainstOneRootIsNotVerifiedForAnother() throws Exception {
    TestImage im = TestImage.random(600, BS, 14);
    HashBlockCache cache = new HashBlockCache(1 << 20);
    byte[] wrongRoot = im.root().clone();
    wrongRoot[0] ^= 1;
    var hash = im.hashDevice();
    try (VerifiedReader good = VerifiedReader.open(im.params(), im.dataDevice(), hash, im.root(), cache, ReaderOptions.DEFAULTS);
        VerifiedReader bad = VerifiedReader.open(im.params(), im.dataDevice(), hash, wrongRoot, cache, ReaderOptions.DEFAULTS)) {
      assertThat(good.read(0, 600 * BS)).isEqualTo(im.data());
      assertThatThrownBy(() -> bad.read(0, BS)).isInstanceOf(CorruptBlockException.class);
      assertThat(cache.stats().images()).isEqualTo(2);
    }
    assertThat(cache.stats().images()).isZero();
    assertThat(cache.stats().cachedBytes()).isZero();
  }

  /** The cache is one budget over several images read at the same time. */
  @Test
  void twoImagesReadConcurrentlyShareOneBudget() throws Exception {
    TestImage a = TestImage.random(3000, BS, 15);
    TestImage b = TestImage.of(Images.random(16, 2000 * 1024), 1024, HashAlgorithm.SHA1, 16);
    HashBlockCache cache = new HashBlockCache(16 << 10); // a few blocks for both
    try (VerifiedReader ra = VerifiedReader.open(a.params(), a.dataDevice(), a.hashDevice(), a.root(), cache, ReaderOptions.DEFAULTS);
        VerifiedReader rb = VerifiedReader.open(b.params(), b.dataDevice(), b.hashDevice(), b.root(), cache, ReaderOptions.DEFAULTS)) {
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread[] threads = new Thread[8];
      for (int i = 0; i < threads.length; i++) {
        TestImage im = i % 2 == 0 ? a : b;
        VerifiedReader r = i % 2 == 0 ? ra : rb;
        long seed = i;
        threads[i] = Thread.ofPlatform().start(() -> {
          java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
          try {
            for (int k = 0; k < 2000; k++) {
              int len = 1 + rnd.nextInt(3 * im.blockSize());
              int off = rnd.nextInt(im.data().length - len);
              if (!Arrays.equals(r.read(off, len), 0, len, im.data(), off, off + len)) {
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

  /** Two readers of one image share its cache space; one closing its devices never breaks the other. */
  @Test
  void readersOfOneImageShareBlocksButEachLoadsFromItsOwnDevice() throws Exception {
    TestImage im = TestImage.random(3000, BS, 17);
    HashBlockCache cache = new HashBlockCache(8 << 10); // two blocks: loads keep happening
    var hash1 = new DeviceWrapper.Closable(im.hashDevice());
    var hash2 = new DeviceWrapper.Closable(im.hashDevice());
    VerifiedReader r1 = VerifiedReader.open(im.params(), im.dataDevice(), hash1, im.root(), cache, ReaderOptions.DEFAULTS);
    try (VerifiedReader r2 = VerifiedReader.open(im.params(), im.dataDevice(), hash2, im.root(), cache, ReaderOptions.DEFAULTS)) {
      assertThat(r1.read(0, BS)).isEqualTo(Arrays.copyOf(im.data(), BS));
      assertThat(cache.stats().images()).isEqualTo(1); // the same image: one space
      hash1.close();
      r1.close();
      for (int b = 0; b < 3000; b += 97) {
        assertThat(r2.read((long) b * BS, BS)).isEqualTo(Arrays.copyOfRange(im.data(), b * BS, (b + 1) * BS));
      }
    }
  }
}
