package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.ref.WeakReference;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.jverity.io.MemoryDevice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class VerificationSchedulerTest {
  VerifiedReaderTest.Image im;
  VerificationScheduler scheduler;

  @BeforeEach
  void open() throws Exception {
    im = VerifiedReaderTest.image(2048, 12, 12, 2, false, 31); // 8 MiB, 2 levels
    scheduler = new VerificationScheduler(im.reader(HashBlockCache.DEFAULT_CAPACITY_BYTES), new HashingPool(2));
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
  @DisplayName("a cache miss hands the rest to the pool, keeping what was verified")
  void aMissFallsBackToThePool() throws Exception {
    read(0, 4096, IoClass.NONE); // cold: the walk needs hash blocks from the device
    assertThat(scheduler.fallbacks()).isEqualTo(1);
    assertThat(scheduler.pooledRequests()).isEqualTo(1);
  }

  @Test
  @DisplayName("an inline attempt stops at the first miss and keeps the blocks before it")
  void inlineStopsAtTheFirstMiss() throws Exception {
    VerifiedReader r = im.reader(HashBlockCache.DEFAULT_CAPACITY_BYTES); // no prefetcher racing the test
    assertThat(r.tryReadInline(0, new byte[4096], 0, 4096)).isZero(); // nothing cached yet
    r.read(0, 1);
    // Block 0's path is cached now; blocks 1..127 share it, block 128 needs another level-0 block.
    byte[] dst = new byte[128 * 4096];
    assertThat(r.tryReadInline(4096, dst, 0, dst.length)).isEqualTo(127 * 4096);
    assertThat(Arrays.copyOf(dst, 127 * 4096)).isEqualTo(Arrays.copyOfRange(im.data(), 4096, 128 * 4096));
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
    VerificationScheduler s = new VerificationScheduler(
        VerifiedReader.open(im.params(), new MemoryDevice("data", im.data()), new MemoryDevice("hash", im.hash()), im.root(), new HashBlockCache(1 << 20), ReaderOptions.DEFAULTS), new HashingPool(2));
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
    assertThat(scheduler.reader().cacheStats().cachedBlocks()).isGreaterThanOrEqualTo(9); // top + 8 level-0
  }

  @Property(tries = 30)
  void anyMixOfReadsReturnsTheImage(@ForAll long seed, @ForAll @IntRange(min = 0, max = 65536) int limit)
      throws Exception {
    VerifiedReaderTest.Image image = VerifiedReaderTest.image(700, 10, 10, 2, false, seed);
    try (VerificationScheduler s = new VerificationScheduler(image.reader(seed % 2 == 0 ? 4096 : 1 << 20), new HashingPool(3))) {
      s.setInlineLimit(IoClass.BEST_EFFORT, limit);
      SplittableRandom rnd = new SplittableRandom(seed);
      for (int i = 0; i < 30; i++) {
        int length = rnd.nextInt(image.data().length / 4);
        long offset = rnd.nextLong(image.data().length - length + 1);
        byte[] dst = new byte[length];
        s.read(offset, dst, 0, length, IoClass.BEST_EFFORT);
        assertThat(dst).isEqualTo(Arrays.copyOfRange(image.data(), (int) offset, (int) offset + length));
      }
    }
  }

  @Test
  @DisplayName("a request that returned leaves its buffer to no helper still queued on a busy pool")
  void helpersQueuedOnABusyPoolDoNotKeepTheBuffer() throws Exception {
    HashingPool pool = new HashingPool(2);
    CountDownLatch busy = new CountDownLatch(1);
    for (int i = 0; i < 2; i++) {
      pool.execute(() -> {
        try {
          busy.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    try (VerificationScheduler s = new VerificationScheduler(im.reader(HashBlockCache.DEFAULT_CAPACITY_BYTES), pool)) {
      byte[] dst = new byte[1 << 20];
      s.read(0, dst, 0, dst.length, IoClass.BEST_EFFORT); // the caller hashes every piece; its helper waits in the queue
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
}
