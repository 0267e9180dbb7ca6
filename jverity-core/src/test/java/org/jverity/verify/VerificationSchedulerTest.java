package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.ref.WeakReference;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.jverity.io.MemoryDevice;
import org.jverity.testing.DeviceWrapper;
import org.jverity.testing.TestImage;

class VerificationSchedulerTest {
  private static final int BS = 4096;
  VerifiedReaderTest.Image im;
  VerificationScheduler scheduler;

  @BeforeEach
  void open() throws Exception {
    im = VerifiedReaderTest.image(2048, 12, 12, 2, false, 31); // 8 MiB, 2 levels
    scheduler =
        new VerificationScheduler(
            im.reader(HashBlockCache.DEFAULT_CAPACITY_BYTES), new HashingPool(2));
  }

  @AfterEach
  void close() {
    scheduler.close();
  }

  byte[] read(long offset, int length, IoClass c) throws Exception {
    byte[] dst = new byte[length];
    scheduler.read(offset, dst, 0, length, c);
    assertThat(dst).isEqualTo(Arrays.copyOfRange(im.data(), (int) offset, (int) offset + length));
    return dst;
  }

  @Test
  @DisplayName("a small read with its hash blocks cached is verified inline")
  void smallCachedReadsStayInline() throws Exception {
    read(0, 8 << 20, IoClass.BEST_EFFORT); // warms every hash block
    long pooled = scheduler.pooledRequests();
    for (int i = 0; i < 100; i++) {
      read(i * 40960L + 17, 4096, IoClass.BEST_EFFORT);
    }
    assertThat(scheduler.inlineRequests()).isEqualTo(100);
    assertThat(scheduler.pooledRequests()).isEqualTo(pooled);
  }

  @Test
  @DisplayName("a read whose hash blocks are not cached goes to the pool without reading inline")
  void aColdReadGoesStraightToThePool() throws Exception {
    read(0, 4096, IoClass.NONE); // cold: the walk needs hash blocks from the device
    assertThat(scheduler.fallbacks()).as("inline attempts that fell back").isZero();
    assertThat(scheduler.inlineRequests()).isZero();
    assertThat(scheduler.pooledRequests()).isEqualTo(1);
  }

  /** A scheduler of its own over the image's arrays as they are now (the devices copy them). */
  private VerificationScheduler overTheDataAsItIsNow() throws Exception {
    return new VerificationScheduler(
        VerifiedReader.open(
            im.params(),
            new MemoryDevice("data", im.data()),
            new MemoryDevice("hash", im.hash()),
            im.root(),
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS),
        new HashingPool(2));
  }

  @Test
  @DisplayName("an inline attempt that cannot decide hands the rest to the pool")
  void aMismatchInlineFallsBackToThePool() throws Exception {
    im.data()[BS + 5] ^= 1; // block 1 does not match: inline never runs the mismatch pipeline
    try (VerificationScheduler s = overTheDataAsItIsNow()) {
      s.read(0, new byte[BS], 0, BS, IoClass.NONE); // block 0's path, which block 1 shares
      assertThatThrownBy(() -> s.read(BS, new byte[BS], 0, BS, IoClass.NONE))
          .isInstanceOf(CorruptBlockException.class);
      assertThat(s.fallbacks()).isEqualTo(1);
      assertThat(s.pooledRequests()).isEqualTo(2);
    }
  }

  @Test
  @DisplayName("an inline attempt stops at the first miss and keeps the blocks before it")
  void inlineStopsAtTheFirstMiss() throws Exception {
    VerifiedReader r =
        im.reader(HashBlockCache.DEFAULT_CAPACITY_BYTES); // no prefetcher racing the test
    assertThat(r.tryReadInline(0, new byte[4096], 0, 4096)).isZero(); // nothing cached yet
    r.read(0, 1);
    // Block 0's path is cached now; blocks 1..127 share it, block 128 needs another level-0 block.
    byte[] dst = new byte[128 * 4096];
    assertThat(r.tryReadInline(4096, dst, 0, dst.length)).isEqualTo(127 * 4096);
    assertThat(Arrays.copyOf(dst, 127 * 4096))
        .isEqualTo(Arrays.copyOfRange(im.data(), 4096, 128 * 4096));
    assertThat(r.cacheStats().misses()).isEqualTo(2); // top and level-0 block 0, loaded once
  }

  @Test
  @DisplayName("idle requests never run inline; limits change at run time")
  void limitsPerClass() throws Exception {
    read(0, 8 << 20, IoClass.BEST_EFFORT);
    long inline = scheduler.inlineRequests();
    read(4096, 4096, IoClass.IDLE);
    read(4096, 16384, IoClass.REAL_TIME); // over 8 KiB
    assertThat(scheduler.inlineRequests()).isEqualTo(inline);
    scheduler.setInlineLimit(IoClass.IDLE, 4096);
    read(4096, 4096, IoClass.IDLE);
    assertThat(scheduler.inlineRequests()).isEqualTo(inline + 1);
  }

  @Test
  @DisplayName("with its budget spent, a thread sends requests to the pool until it refills")
  void budgetBoundsInlineWork() throws Exception {
    read(0, 8 << 20, IoClass.BEST_EFFORT);
    scheduler.setInlineBudget(0, 1_000_000_000L);
    long inline = scheduler.inlineRequests();
    read(4096, 4096, IoClass.BEST_EFFORT);
    assertThat(scheduler.inlineRequests()).isEqualTo(inline);
    scheduler.setInlineBudget(1_000_000_000L, 1);
    read(4096, 4096, IoClass.BEST_EFFORT);
    assertThat(scheduler.inlineRequests()).isEqualTo(inline + 1);
  }

  @Test
  @DisplayName("a large read is cut into pieces for every pool thread")
  void largeReadsAreSplit() throws Exception {
    read(100, 512 << 10, IoClass.BEST_EFFORT);
    assertThat(scheduler.pieces()).isGreaterThanOrEqualTo(2);
  }

  @Test
  @DisplayName("corruption in one piece fails the request with the lowest corrupt block")
  void corruptionInAPiece() throws Exception {
    im.data()[300 * 4096] ^= 1;
    im.data()[100 * 4096] ^= 1;
    VerificationScheduler s = overTheDataAsItIsNow();
    try {
      assertThatThrownBy(() -> s.read(0, new byte[2 << 20], 0, 2 << 20, IoClass.BEST_EFFORT))
          .isInstanceOf(CorruptBlockException.class)
          .satisfies(e -> assertThat(((CorruptBlockException) e).block()).isEqualTo(100));
    } finally {
      s.close();
    }
  }

  @Test
  @DisplayName("prefetch loads the cluster's hash blocks without being waited for")
  void prefetchLoadsHashBlocks() throws Exception {
    scheduler.setPrefetchCluster(4 << 20); // 1024 blocks: 8 level-0 hash blocks
    read(0, 4096, IoClass.BEST_EFFORT);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (scheduler.reader().cacheStats().cachedBlocks() < 9 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(scheduler.prefetches()).isGreaterThanOrEqualTo(7);
    assertThat(scheduler.reader().cacheStats().cachedBlocks())
        .isGreaterThanOrEqualTo(9); // top + 8 level-0
  }

  @Property(tries = 30)
  void anyMixOfReadsReturnsTheImage(
      @ForAll long seed, @ForAll @IntRange(min = 0, max = 65536) int limit) throws Exception {
    VerifiedReaderTest.Image image = VerifiedReaderTest.image(700, 10, 10, 2, false, seed);
    try (VerificationScheduler s =
        new VerificationScheduler(
            image.reader(seed % 2 == 0 ? 4096 : 1 << 20), new HashingPool(3))) {
      s.setInlineLimit(IoClass.BEST_EFFORT, limit);
      SplittableRandom rnd = new SplittableRandom(seed);
      for (int i = 0; i < 30; i++) {
        int length = rnd.nextInt(image.data().length / 4);
        long offset = rnd.nextLong(image.data().length - length + 1);
        byte[] dst = new byte[length];
        s.read(offset, dst, 0, length, IoClass.BEST_EFFORT);
        assertThat(dst)
            .isEqualTo(Arrays.copyOfRange(image.data(), (int) offset, (int) offset + length));
      }
    }
  }

  @Test
  @DisplayName("a request that returned leaves its buffer to no helper still queued on a busy pool")
  void helpersQueuedOnABusyPoolDoNotKeepTheBuffer() throws Exception {
    HashingPool pool = new HashingPool(2);
    CountDownLatch busy = new CountDownLatch(1);
    for (int i = 0; i < 2; i++) {
      pool.execute(
          () -> {
            try {
              busy.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
    }
    try (VerificationScheduler s =
        new VerificationScheduler(im.reader(HashBlockCache.DEFAULT_CAPACITY_BYTES), pool)) {
      byte[] dst = new byte[1 << 20];
      s.read(
          0,
          dst,
          0,
          dst.length,
          IoClass.BEST_EFFORT); // the caller hashes every piece; its helper waits in the queue
      assertThat(dst).isEqualTo(Arrays.copyOf(im.data(), dst.length));
      WeakReference<byte[]> buffer = new WeakReference<>(dst);
      dst = null;
      for (int i = 0; i < 20 && buffer.get() != null; i++) {
        System.gc();
        Thread.sleep(10);
      }
      // A server's requests in flight are bounded, the pool's queue is not: a buffer kept by every
      // queued helper made memory grow with the clients (16 nbdcopy: out of memory at 128 MiB).
      assertThat(buffer.get()).as("the returned request's buffer, once unreachable").isNull();
    } finally {
      busy.countDown();
      pool.close();
    }
  }

  /**
   * Defect 3 (issue 6): arguments are checked before any work: no prefetch, no load, no spin on
   * overflow.
   */
  @Test
  void badArgumentsAreRefusedBeforeAnyWork() throws Exception {
    TestImage im = TestImage.random(600, BS, 2);
    DeviceWrapper.Counting hash = new DeviceWrapper.Counting(im.hashDevice());
    try (VerifiedReader r = Readers.open(im, im.dataDevice(), hash, ReaderOptions.DEFAULTS);
        VerificationScheduler s = new VerificationScheduler(r, new HashingPool(2))) {
      assertThatThrownBy(() -> s.read(Long.MAX_VALUE - 10, new byte[BS], 0, BS))
          .isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> s.read(-BS, new byte[BS], 0, BS)).isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> s.read(r.size(), new byte[BS], 0, 1))
          .isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> s.read(0, new byte[BS], 1, BS))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> s.read(0, new byte[BS], -1, 10))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThat(hash.reads.get()).isZero();
      assertThat(r.cacheStats().cachedBlocks()).isZero();
    }
  }

  /**
   * Defect 3 (issue 6): an interrupted large read returned while pool threads still wrote into the
   * caller's array; a later read into the same array then held bytes of the earlier range.
   */
  @Test
  void anInterruptedReadNeverWritesTheBufferAfterItThrows() throws Exception {
    TestImage im = TestImage.random(1024, BS, 3);
    var slowData =
        new DeviceWrapper.Slow(im.dataDevice(), 300); // 300 µs per read: pieces stay in flight
    try (VerifiedReader r = Readers.open(im, slowData, im.hashDevice(), ReaderOptions.DEFAULTS);
        HashingPool pool = new HashingPool(2);
        VerificationScheduler s = new VerificationScheduler(r, pool)) {
      byte[] dst = new byte[2 << 20];
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      byte[][] afterThrow = new byte[1][];
      CountDownLatch started = new CountDownLatch(1);
      Thread reader =
          Thread.ofPlatform()
              .start(
                  () -> {
                    started.countDown();
                    try {
                      while (true) {
                        s.read(0, dst, 0, dst.length, IoClass.BEST_EFFORT);
                      }
                    } catch (Throwable t) {
                      afterThrow[0] =
                          dst.clone(); // the array as the caller sees it when read throws
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

  /**
   * Defect 3 (issue 6): close() with reads in flight used to hang them; now they finish and later
   * reads are refused.
   */
  @Test
  void closeWaitsForReadsInFlightAndLaterReadsAreRefused() throws Exception {
    TestImage im = TestImage.random(512, BS, 4);
    var slowData = new DeviceWrapper.Slow(im.dataDevice(), 200);
    VerifiedReader r = Readers.open(im, slowData, im.hashDevice(), ReaderOptions.DEFAULTS);
    HashingPool pool = new HashingPool(1);
    VerificationScheduler s = new VerificationScheduler(r, pool);
    Thread[] readers = new Thread[4];
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch started = new CountDownLatch(readers.length);
    for (int i = 0; i < readers.length; i++) {
      readers[i] =
          Thread.ofVirtual()
              .start(
                  () -> {
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

  /**
   * Defect 3 (issue 6): a scheduler nobody closes leaves no thread behind (the pool's threads end
   * when idle).
   */
  @Test
  void anIdlePoolEndsItsThreads() throws Exception {
    TestImage im = TestImage.random(256, BS, 5);
    HashingPool pool = new HashingPool(2, 200); // 200 ms idle
    VerificationScheduler s =
        new VerificationScheduler(
            Readers.open(im, im.dataDevice(), im.hashDevice(), ReaderOptions.DEFAULTS), pool);
    assertThat(s.read(0, 1 << 20)).isEqualTo(Arrays.copyOf(im.data(), 1 << 20));
    assertThat(pool.liveThreads()).isPositive();
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (pool.liveThreads() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(pool.liveThreads()).isZero();
  }

  /** Defect 8 (issue 6): a failed prefetch is counted; the real read reports the error itself. */
  @Test
  void failedPrefetchesAreCounted() throws Exception {
    TestImage im = TestImage.random(600, BS, 10);
    var failing = new DeviceWrapper.Failing(im.hashDevice(), 3 * BS, 4 * BS); // level-0 block 2
    try (VerifiedReader r = Readers.open(im, im.dataDevice(), failing, ReaderOptions.DEFAULTS);
        VerificationScheduler s = new VerificationScheduler(r, new HashingPool(2))) {
      s.setPrefetchCluster(2 << 20); // the cluster covers data blocks 0..511: level-0 blocks 0..3
      assertThat(s.read(0, BS)).isEqualTo(Arrays.copyOf(im.data(), BS));
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (s.failedPrefetches() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(s.failedPrefetches()).isEqualTo(1);
      assertThatThrownBy(() -> s.read(300L * BS, BS))
          .isInstanceOf(IOException.class)
          .isNotInstanceOf(CorruptBlockException.class);
      assertThat(r.corruptionCount()).isZero();
    }
  }
}
