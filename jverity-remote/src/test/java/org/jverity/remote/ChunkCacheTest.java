package org.jverity.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.remote.cache.ChunkCache;

/** {@link ChunkCache} on disk: restarts, torn and garbled files, its bound, its lock. */
class ChunkCacheTest extends RemoteFixture {
  Path dir() {
    return tmp.resolve("cache");
  }

  /** A fresh cache and device over the same directory, as a restarted process has. */
  RemoteDevice restart(RemoteOptions o) throws Exception {
    closeAll();
    open.clear();
    return device(o);
  }

  @Test
  void aRestartOverTheSameDirectoryHitsWithoutFetching() throws Exception {
    RemoteOptions o = options(dir(), 8 << 20, 0);
    assertThat(read(device(o), 0, SIZE)).isEqualTo(content);
    int before = stored.requests.get();
    RemoteDevice again = restart(o);
    long hits = stats.cacheHits.sum();
    assertThat(read(again, 0, SIZE)).isEqualTo(content);
    assertThat(stored.requests.get()).isEqualTo(before);
    assertThat(stats.cacheHits.sum() - hits).isEqualTo((SIZE + CHUNK - 1) / CHUNK);
  }

  @Test
  void aCutChunksFileIsACleanMissOfWhatWasCut() throws Exception {
    RemoteOptions o = options(dir(), 8 << 20, 0);
    RemoteDevice d = device(o);
    read(d, 0, SIZE);
    try (FileChannel ch = FileChannel.open(dir().resolve("chunks"), StandardOpenOption.WRITE)) {
      ch.truncate(10 * CHUNK + 5); // while open: the next hit past it cannot be read
    }
    assertThat(read(d, 0, SIZE)).isEqualTo(content);
    int before = stored.requests.get();
    RemoteDevice again = restart(o);
    assertThat(read(again, 0, SIZE)).isEqualTo(content);
    assertThat(stored.requests.get()).isEqualTo(before); // the refetched chunks were kept
  }

  @Test
  void aGarbledOrCutIndexIsACleanMissOfEverything() throws Exception {
    RemoteOptions o = options(dir(), 8 << 20, 0);
    read(device(o), 0, SIZE);
    closeAll();
    open.clear();
    byte[] index = Files.readAllBytes(dir().resolve("index"));
    for (int i = 64; i < index.length; i += 7) {
      index[i] ^= 0x5a; // every record's CRC fails
    }
    Files.write(dir().resolve("index"), index);
    int before = stored.requests.get();
    assertThat(read(device(o), 0, SIZE)).isEqualTo(content);
    assertThat(stored.requests.get()).isGreaterThan(before);
    closeAll();
    open.clear();
    try (FileChannel ch = FileChannel.open(dir().resolve("index"), StandardOpenOption.WRITE)) {
      ch.truncate(10); // no header: the cache starts empty
    }
    before = stored.requests.get();
    assertThat(read(device(o), 0, SIZE)).isEqualTo(content);
    assertThat(stored.requests.get()).isGreaterThan(before);
  }

  @Test
  void aRecordOverwrittenByHandIsDropped() throws Exception {
    RemoteOptions o = options(dir(), 8 << 20, 0);
    RemoteDevice d = device(o);
    read(d, 0, SIZE);
    String key = d.identity().cacheKey();
    int slot = CacheFiles.slotOf(dir(), key, 3);
    assertThat(slot).isNotNegative();
    closeAll();
    open.clear();
    try (FileChannel ch = FileChannel.open(dir().resolve("index"), StandardOpenOption.WRITE)) {
      ByteBuffer r = ByteBuffer.allocate(64);
      r.putInt(0, 0x4a56434b).putInt(4, 99).putLong(8, 3); // a record with a wrong CRC
      ch.write(r, 64 + slot * 64L);
    }
    int before = stored.requests.get();
    assertThat(read(device(o), 0, SIZE)).isEqualTo(content);
    assertThat(stored.requests.get()).isEqualTo(before + 1); // chunk 3 only
  }

  @Test
  void theDirectoryStaysWithinItsBound() throws Exception {
    long max = 512 << 10;
    RemoteOptions o = options(dir(), max, 256 << 10);
    RemoteDevice d = device(o);
    for (int pass = 0; pass < 2; pass++) {
      assertThat(read(d, 0, SIZE)).isEqualTo(content);
      for (long at = 0; at < SIZE; at += 64 << 10) {
        int n = (int) Math.min(4096, SIZE - at);
        assertThat(read(d, at, n)).isEqualTo(expected(at, n));
      }
    }
    waitFor(() -> stored.active.get() == 0);
    long slots = max / CHUNK;
    assertThat(CacheFiles.size(dir())).isLessThanOrEqualTo(max + 64 + slots * 64);
    assertThat(stats.cacheEvictions.sum()).isPositive();
  }

  @Test
  void oneCachePerDirectory() throws Exception {
    RemoteOptions o = options(dir(), 1 << 20, 0);
    cache(o);
    assertThatThrownBy(() -> ChunkCache.open(o, stats))
        .isInstanceOf(IOException.class)
        .hasMessage("cache directory " + dir() + ": in use by another cache");
  }

  @Test
  void anotherGeometryStartsEmpty() throws Exception {
    read(device(options(dir(), 8 << 20, 0)), 0, SIZE);
    int before = stored.requests.get();
    RemoteDevice smaller = restart(options(dir(), 1 << 20, 0));
    assertThat(read(smaller, 0, SIZE)).isEqualTo(content);
    assertThat(stored.requests.get()).isGreaterThan(before);
    assertThat(CacheFiles.size(dir())).isLessThanOrEqualTo((1 << 20) + 64 + 16 * 64);
  }

  /**
   * Issue 27 item 9: a symbolic link for {@code index} or {@code chunks} is not followed (a
   * 1,000,000-byte file it named became a 4,224-byte index), nor is a file with another hard link
   * truncated; the cache runs without the directory, reading right, and each start does so again
   * rather than fail.
   */
  @ParameterizedTest(name = "{0} as {1}")
  @CsvSource({
    "index, symlink",
    "chunks, symlink",
    "index, hardlink",
    "chunks, directory",
    "lock, symlink",
  })
  void aCacheFileThatIsNotARegularFileOfItsOwnIsLeftAndTheCacheRunsWithout(String file, String kind)
      throws Exception {
    Files.createDirectories(dir());
    byte[] victimBytes = new byte[1_000_000];
    java.util.Arrays.fill(victimBytes, (byte) 7);
    Path victim = Files.write(tmp.resolve("victim"), victimBytes);
    Path at = dir().resolve(file);
    switch (kind) {
      case "symlink" -> Files.createSymbolicLink(at, victim);
      case "hardlink" -> Files.createLink(at, victim);
      default -> Files.createDirectory(at);
    }
    RemoteOptions o = options(dir(), 8 << 20, 0);
    for (int start = 0; start < 2; start++) {
      int before = stored.requests.get();
      assertThat(read(restart(o), 0, SIZE)).isEqualTo(content);
      assertThat(stored.requests.get()).as("uncached: fetched again").isGreaterThan(before);
    }
    assertThat(Files.readAllBytes(victim)).isEqualTo(victimBytes);
    assertThat(Files.isSymbolicLink(at) || Files.isDirectory(at) || Files.isRegularFile(at))
        .as("left as it was")
        .isTrue();
  }

  @Test
  void theLockFileNamesItsHolder() throws Exception {
    cache(options(dir(), 1 << 20, 0));
    assertThat(Files.readString(dir().resolve("lock")))
        .isEqualTo(ProcessHandle.current().pid() + "\n");
  }
}
