package org.jverity.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.remote.cache.ChunkCache;

/** Remote devices over a real origin (a local file) and real caches, closed after each test. */
abstract class RemoteFixture {
  static final int CHUNK = 64 << 10;
  static final int SIZE = 3 * (1 << 20) + 12345; // the last chunk is short

  @TempDir Path tmp;
  byte[] content;
  FileOrigin.Stored stored;
  RemoteStats stats;
  final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void object() throws IOException {
    content = random(SIZE, 1);
    Path file = tmp.resolve("object");
    Files.write(file, content);
    stored = new FileOrigin.Stored(file);
    stats = new RemoteStats();
  }

  @AfterEach
  void closeAll() throws Exception {
    if (stored.gate != null) {
      stored.gate.countDown();
    }
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static RemoteOptions options(Path dir, long max, int readahead) {
    return RemoteOptions.builder().cache(dir, max).chunkSize(CHUNK).readaheadMax(readahead).build();
  }

  ChunkCache cache(RemoteOptions o) throws IOException {
    ChunkCache c = ChunkCache.open(o, stats);
    open.add(c);
    return c;
  }

  RemoteDevice device(ChunkCache cache, RemoteOptions o) throws IOException {
    RemoteDevice d = new RemoteDevice(new FileOrigin(stored, stats), cache, o, stats);
    open.add(d);
    return d;
  }

  RemoteDevice device(RemoteOptions o) throws IOException {
    return device(cache(o), o);
  }

  byte[] read(RemoteDevice d, long offset, int length) throws IOException {
    byte[] b = new byte[length];
    d.readFully(offset, b, 0, length);
    return b;
  }

  byte[] expected(long offset, int length) {
    return Arrays.copyOfRange(content, (int) offset, (int) offset + length);
  }

  void readsMatch(RemoteDevice d, long seed) throws IOException {
    Random r = new Random(seed);
    for (int i = 0; i < 300; i++) {
      int length = 1 + r.nextInt(3 * CHUNK);
      long offset = r.nextInt(SIZE - length + 1);
      assertThat(read(d, offset, length))
          .as("%d bytes at %d", length, offset)
          .isEqualTo(expected(offset, length));
    }
    for (long at = 0; at < SIZE; at += 4096) {
      int length = (int) Math.min(4096, SIZE - at);
      assertThat(read(d, at, length)).isEqualTo(expected(at, length));
    }
    assertThat(read(d, 0, SIZE)).isEqualTo(content);
  }

  static void waitFor(BooleanSupplier what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!what.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited 20 s").isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
