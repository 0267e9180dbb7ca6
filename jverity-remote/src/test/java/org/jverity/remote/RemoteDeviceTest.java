package org.jverity.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.jverity.remote.cache.ChunkCache;

/**
 * {@link RemoteDevice} over a real origin (a local file) and a real cache, in memory and on disk.
 */
class RemoteDeviceTest extends RemoteFixture {
  @Test
  void readsAreByteIdenticalWithACacheInMemory() throws IOException {
    RemoteOptions o = options(null, 1 << 20, 1 << 20); // smaller than the object: evicts
    ChunkCache cache = cache(o);
    RemoteDevice d = device(cache, o);
    readsMatch(d, 7);
    assertThat(stats.cacheHits.sum()).isPositive();
    assertThat(stats.cacheEvictions.sum()).isPositive();
    assertThat(cache.chunks()).isLessThanOrEqualTo((1 << 20) / CHUNK);
    assertThat(d.size()).isEqualTo(SIZE);
    assertThat(d.description()).isEqualTo("file://" + stored.file);
  }

  @Test
  void readsAreByteIdenticalWithACacheOnDisk() throws IOException {
    readsMatch(device(options(tmp.resolve("cache"), 2 << 20, 1 << 20)), 8);
    assertThat(stats.cacheHits.sum()).isPositive();
  }

  @Test
  void aReadPastTheEndIsAnEofNotAFetch() throws IOException {
    RemoteDevice d = device(options(null, 1 << 20, 0));
    assertThatThrownBy(() -> read(d, SIZE - 10, 11))
        .isInstanceOf(EOFException.class)
        .hasMessageContaining("past its end");
    assertThat(stored.requests.get()).isZero();
  }

  @Test
  void adjacentMissesOfOneReadAreOneFetch() throws IOException {
    RemoteDevice d = device(options(null, 4 << 20, 0));
    assertThat(read(d, CHUNK + 100, 5 * CHUNK)).isEqualTo(expected(CHUNK + 100, 5 * CHUNK));
    assertThat(stored.requests.get()).isEqualTo(1);
    assertThat(stats.cacheMisses.sum()).isEqualTo(6); // chunks 1 to 6
    assertThat(read(d, 2 * CHUNK, 3 * CHUNK)).isEqualTo(expected(2 * CHUNK, 3 * CHUNK));
    assertThat(stored.requests.get()).isEqualTo(1);
    assertThat(stats.cacheHits.sum()).isEqualTo(3);
    // a hit in the middle splits the misses around it: two fetches
    assertThat(read(d, 0, 9 * CHUNK)).isEqualTo(expected(0, 9 * CHUNK));
    assertThat(stored.requests.get()).isEqualTo(3);
  }

  @Test
  void concurrentReadersOfAChunkWaitForOneFetch() throws Exception {
    RemoteDevice d = device(options(null, 4 << 20, 0));
    stored.gate = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<byte[]>> reads = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        long at = 2 * CHUNK + i * 1000;
        reads.add(pool.submit(() -> read(d, at, 3000)));
      }
      waitFor(() -> stored.requests.get() >= 1);
      Thread.sleep(200); // the others find the fetch in flight
      stored.gate.countDown();
      for (int i = 0; i < 8; i++) {
        assertThat(reads.get(i).get()).isEqualTo(expected(2 * CHUNK + i * 1000, 3000));
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(stored.requests.get()).isEqualTo(1);
  }

  @Test
  void readsInFlightAreFetchesInFlight() throws Exception {
    RemoteDevice d = device(options(null, 8 << 20, 0));
    stored.delayMillis = 100;
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<byte[]>> reads = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        long at = 5L * i * CHUNK;
        reads.add(pool.submit(() -> read(d, at, 4096)));
      }
      for (int i = 0; i < 8; i++) {
        assertThat(reads.get(i).get()).isEqualTo(expected(5L * i * CHUNK, 4096));
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(stored.requests.get()).isEqualTo(8);
    assertThat(stored.maxActive.get()).isGreaterThan(1);
  }

  @Test
  void aStreamsWindowIsFetchedWhileTheStreamReads() throws Exception {
    RemoteDevice d = device(options(null, 8 << 20, 4 << 20));
    stored.delayMillis = 100;
    // the first window joins the miss's own fetch; the later ones go out as parallel ranges
    for (int at = 0; at + (256 << 10) <= SIZE; at += 256 << 10) {
      assertThat(read(d, at, 256 << 10)).isEqualTo(expected(at, 256 << 10));
    }
    waitFor(() -> stored.active.get() == 0);
    assertThat(stored.requests.get()).as("few requests for 12 reads").isLessThanOrEqualTo(6);
    assertThat(stored.maxActive.get())
        .as("requests %d, largest %d", stored.requests.get(), stored.largestRange.get())
        .isGreaterThan(1);
  }

  @Test
  void aFailedFetchFailsOnlyTheReadThatNeededItAsThrown() throws IOException {
    RemoteDevice d = device(options(null, 4 << 20, 0));
    read(d, 0, CHUNK);
    stored.failNext.set(1);
    assertThatThrownBy(() -> read(d, 5 * CHUNK, 10))
        .isInstanceOf(OriginException.class)
        .hasMessage("file://" + stored.file + ": bytes 327680-393215: 503 (fault)");
    assertThat(read(d, 0, CHUNK)).isEqualTo(expected(0, CHUNK)); // cached: untouched
    assertThat(read(d, 5 * CHUNK, 10)).isEqualTo(expected(5 * CHUNK, 10)); // asked again
  }

  @Test
  void aSequentialStreamReadsAheadInAGrowingBoundedWindow() throws Exception {
    int max = 512 << 10;
    RemoteDevice d = device(options(null, 8 << 20, max));
    int span = 2 << 20;
    for (int at = 0; at < span; at += 4096) {
      assertThat(read(d, at, 4096)).isEqualTo(expected(at, 4096));
    }
    waitFor(() -> stored.active.get() == 0);
    int chunksRead = span / CHUNK; // 32: one request each without read-ahead
    assertThat(stored.requests.get()).isLessThan(chunksRead / 2);
    assertThat(stored.bytes.get()).isLessThanOrEqualTo(span + 2L * max);
    assertThat(stored.largestRange.get()).isLessThanOrEqualTo(RemoteDevice.AHEAD_RANGE);
    assertThat(stored.largestRange.get()).isGreaterThan(CHUNK); // the window grew past a chunk
  }

  @Test
  void readsThatFollowNoStreamDoNotReadAhead() throws Exception {
    RemoteDevice d = device(options(null, 8 << 20, 1 << 20));
    List<Long> chunks = new ArrayList<>();
    for (long c = 0; c * CHUNK < SIZE - 4096; c += 3) { // never next to another
      chunks.add(c);
    }
    Collections.shuffle(chunks, new Random(3));
    Random r = new Random(4);
    for (long c : chunks) {
      long at = c * CHUNK + r.nextInt(CHUNK / 4096 - 1) * 4096L;
      assertThat(read(d, at, 4096)).isEqualTo(expected(at, 4096));
    }
    waitFor(() -> stored.active.get() == 0);
    assertThat(stats.cacheMisses.sum()).isEqualTo(chunks.size());
    assertThat(stored.requests.get()).isEqualTo(chunks.size());
  }

  @Test
  void prefetchDoesNotBlockAndIsBounded() throws Exception {
    RemoteOptions o = options(null, 8 << 20, 0);
    o = o.toBuilder().parallel(2).chunkSize(CHUNK).readaheadMax(0).build();
    RemoteDevice d = device(o);
    stored.gate = new CountDownLatch(1); // no fetch ends until it opens
    long t0 = System.nanoTime();
    for (int i = 0; i < 10; i++) {
      d.prefetch(2L * i * CHUNK, CHUNK); // ten separate ranges
    }
    d.prefetch(SIZE - 1, 100); // clamped, never throws
    d.prefetch(-5, 10);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    int bound = 2 * RemoteDevice.ASYNC_PER_PARALLEL; // parallel 2
    waitFor(() -> stored.requests.get() == bound);
    Thread.sleep(100);
    assertThat(stored.requests.get()).as("the bound in flight, the rest dropped").isEqualTo(bound);
    stored.gate.countDown();
    waitFor(() -> stored.active.get() == 0);
    assertThat(read(d, 0, CHUNK)).isEqualTo(expected(0, CHUNK));
    assertThat(stored.requests.get()).as("prefetched: a hit").isEqualTo(bound);
  }

  @Test
  void closeWaitsForTheFetchesItStarted() throws Exception {
    RemoteOptions o = options(null, 8 << 20, 0);
    RemoteDevice d = device(o);
    stored.delayMillis = 300;
    d.prefetch(0, 4 * CHUNK);
    d.prefetch(20 * CHUNK, 4 * CHUNK);
    waitFor(() -> stored.active.get() == 2);
    d.close();
    assertThat(stored.active.get()).isZero();
    assertThatThrownBy(() -> read(d, 0, 1)).hasMessageContaining("closed");
  }

  @Test
  void anObjectChangedLatchesWithoutAskingTheOriginAgain() throws IOException {
    RemoteDevice d = device(options(null, 8 << 20, 0));
    read(d, 0, CHUNK);
    stored.replace(random(SIZE, 2));
    int before = stored.requests.get();
    assertThatThrownBy(() -> read(d, 5 * CHUNK, 10))
        .isInstanceOf(ObjectChangedException.class)
        .hasMessageContaining("changed since open: ETag \"v1\" -> \"v2\"");
    assertThat(stored.requests.get()).isEqualTo(before + 1);
    assertThatThrownBy(() -> read(d, 9 * CHUNK, 10)).isInstanceOf(ObjectChangedException.class);
    assertThatThrownBy(() -> read(d, 0, 10)).isInstanceOf(ObjectChangedException.class);
    assertThatThrownBy(() -> d.reread(0, ByteBuffer.allocate(10)))
        .isInstanceOf(ObjectChangedException.class);
    d.prefetch(0, SIZE);
    assertThat(stored.requests.get()).isEqualTo(before + 1);
  }

  @Test
  void reopenSwitchesToTheNewObjectWhenItsSizeIsTheSame() throws IOException {
    RemoteOptions o = options(null, 8 << 20, 0).withOnChange(RemoteOptions.OnChange.REOPEN);
    RemoteDevice d = device(o);
    read(d, 0, CHUNK);
    content = random(SIZE, 2);
    stored.replace(content);
    assertThat(read(d, 5 * CHUNK, 10)).isEqualTo(expected(5 * CHUNK, 10));
    assertThat(d.identity().etag()).isEqualTo("\"v2\"");
    assertThat(read(d, 0, CHUNK)).as("no old chunk is read").isEqualTo(expected(0, CHUNK));
    // a new size: reopened, then latched
    content = random(SIZE + 1, 3);
    stored.replace(content);
    int before = stored.requests.get();
    assertThatThrownBy(() -> read(d, 7 * CHUNK, 10)).isInstanceOf(ObjectChangedException.class);
    assertThatThrownBy(() -> read(d, 8 * CHUNK, 10)).isInstanceOf(ObjectChangedException.class);
    assertThat(stored.requests.get()).isEqualTo(before + 1);
  }

  @Test
  void rereadFetchesOnlyWhatItAsksPastTheCacheAndTheBadChunkIsFetchedWholeNextTime()
      throws IOException {
    Path dir = tmp.resolve("cache");
    RemoteDevice d = device(options(dir, 4 << 20, 0));
    read(d, 0, CHUNK); // chunk 0, in the first free slot: slot 0
    CacheFiles.flip(dir, 0, 100);
    assertThat(read(d, 100, 1)[0]).as("the tampered copy is served").isNotEqualTo(content[100]);
    int before = stored.requests.get();
    long bytesBefore = stats.bytes.sum();
    byte[] fresh = new byte[4096];
    d.reread(0, fresh, 0, 4096);
    assertThat(fresh).isEqualTo(expected(0, 4096));
    assertThat(stats.rereads.sum()).isEqualTo(1);
    assertThat(stored.requests.get()).isEqualTo(before + 1);
    assertThat(stats.bytes.sum() - bytesBefore).as("the block, not its chunk").isEqualTo(4096);
    assertThat(read(d, 0, CHUNK)).as("healed").isEqualTo(expected(0, CHUNK));
    assertThat(stored.requests.get()).as("the dropped chunk, fetched whole").isEqualTo(before + 2);
    assertThat(read(d, 0, CHUNK)).isEqualTo(expected(0, CHUNK));
    assertThat(stored.requests.get()).as("and kept").isEqualTo(before + 2);
  }
}
