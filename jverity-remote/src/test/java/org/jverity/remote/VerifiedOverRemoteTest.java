package org.jverity.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.image.DeviceSource;
import org.jverity.image.ParamOverrides;
import org.jverity.image.RootCheck;
import org.jverity.image.VerifiedImage;
import org.jverity.image.VerityImage;
import org.jverity.io.BlockDevice;
import org.jverity.testkit.Veritysetup;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * The core's opener and verified reader over remote devices: an image veritysetup made, served by
 * {@link FileOrigin}s through {@link RemoteDevice}s and a cache on disk.
 */
class VerifiedOverRemoteTest {
  static final int SIZE = 4 << 20;

  @TempDir Path tmp;
  byte[] content;
  String root;
  final Map<String, FileOrigin.Stored> objects = new HashMap<>();
  RemoteStats stats;
  RemoteOptions options;
  RemoteSource remote;

  /** Opens the named objects as remote devices of one source (one cache, one set of counters). */
  final DeviceSource source =
      new DeviceSource() {
        @Override
        public BlockDevice open(String location) throws IOException {
          return remote.device(new FileOrigin(objects.get(location), remote.stats()));
        }

        @Override
        public boolean same(String a, String b) {
          return a.equals(b);
        }
      };

  @BeforeEach
  void image() throws IOException {
    content = new byte[SIZE];
    new Random(5).nextBytes(content);
    Path data = tmp.resolve("data.img");
    Path hash = tmp.resolve("hash.img");
    Files.write(data, content);
    String out =
        Veritysetup.run(
                "format",
                data.toString(),
                hash.toString(),
                "--data-block-size",
                "1024",
                "--hash-block-size",
                "1024")
            .ok()
            .out();
    Matcher m = Pattern.compile("Root hash:\\s+([0-9a-f]+)").matcher(out);
    assertThat(m.find()).as(out).isTrue();
    root = m.group(1);
    objects.put("https://store/data.img", new FileOrigin.Stored(data));
    objects.put("https://store/hash.img", new FileOrigin.Stored(hash));
    options = RemoteFixture.options(tmp.resolve("cache"), 16 << 20, 1 << 20);
    remote = new RemoteSource(options);
    stats = remote.stats();
  }

  @AfterEach
  void closeCache() {
    remote.close();
  }

  VerifiedImage open() throws Exception {
    return VerityImage.open(
            source,
            "https://store/data.img",
            "https://store/hash.img",
            ParamOverrides.NONE,
            root,
            null,
            RootCheck.NONE)
        .reader(new HashBlockCache(1 << 20), ReaderOptions.DEFAULTS);
  }

  byte[] read(VerifiedReader r, long offset, int length) throws IOException {
    byte[] b = new byte[length];
    r.read(offset, b, 0, length);
    return b;
  }

  @Test
  void everyByteReadsVerifiedAndIdentical() throws Exception {
    try (VerifiedImage image = open()) {
      VerifiedReader r = image.reader();
      Random rnd = new Random(9);
      for (int i = 0; i < 100; i++) {
        int length = 1 + rnd.nextInt(300_000);
        long offset = rnd.nextInt(SIZE - length + 1);
        assertThat(read(r, offset, length))
            .isEqualTo(Arrays.copyOfRange(content, (int) offset, (int) offset + length));
      }
      assertThat(read(r, 0, SIZE)).isEqualTo(content);
      assertThat(r.corruptionCount()).isZero();
    }
    assertThat(stats.cacheHits.sum()).isPositive();
    assertThat(stats.rereads.sum()).isZero();
  }

  @Test
  void aTamperedCacheChunkIsRefetchedAndHealedNotReported() throws Exception {
    try (VerifiedImage image = open()) {
      assertThat(read(image.reader(), 0, SIZE)).isEqualTo(content); // every chunk cached
    }
    Path dir = tmp.resolve("cache");
    String dataKey = objects.get("https://store/data.img").identityKey();
    String hashKey = objects.get("https://store/hash.img").identityKey();
    int dataSlot = CacheFiles.slotOf(dir, dataKey, 3);
    int hashSlot = CacheFiles.slotOf(dir, hashKey, 1); // level 0 of the tree
    assertThat(dataSlot).isNotNegative();
    assertThat(hashSlot).isNotNegative();
    CacheFiles.flip(dir, dataSlot, 100);
    CacheFiles.flip(dir, hashSlot, 2000);
    int requests = objects.values().stream().mapToInt(s -> s.requests.get()).sum();
    try (VerifiedImage image = open()) {
      VerifiedReader r = image.reader();
      assertThat(read(r, 0, SIZE)).isEqualTo(content);
      assertThat(r.corruptionCount()).isZero();
    }
    assertThat(stats.rereads.sum()).isEqualTo(2);
    // a recheck per bad block; a dropped chunk read again in this pass is fetched whole, once
    assertThat(totalRequests()).isBetween(requests + 2, requests + 4);
    try (VerifiedImage image = open()) { // the two bad chunks were dropped: fetched whole, once
      assertThat(read(image.reader(), 0, SIZE)).isEqualTo(content);
    }
    assertThat(totalRequests()).isEqualTo(requests + 4);
    assertThat(stats.rereads.sum()).isEqualTo(2);
    ByteBuffer b = ByteBuffer.allocate(1);
    int healed = CacheFiles.slotOf(dir, dataKey, 3);
    try (FileChannel ch = FileChannel.open(dir.resolve("chunks"), StandardOpenOption.READ)) {
      ch.read(b, (long) healed * options.chunkSize() + 100);
    }
    assertThat(b.get(0))
        .as("the cache was healed")
        .isEqualTo(content[3 * options.chunkSize() + 100]);
    try (VerifiedImage image = open()) {
      assertThat(read(image.reader(), 0, SIZE)).isEqualTo(content);
    }
    assertThat(totalRequests()).as("all from the cache now").isEqualTo(requests + 4);
  }

  private int totalRequests() {
    return objects.values().stream().mapToInt(s -> s.requests.get()).sum();
  }

  @Test
  void aReplacedObjectFailsOnceOrIsReopenedAndStillVerifies() throws Exception {
    FileOrigin.Stored data = objects.get("https://store/data.img");
    remote.close();
    options = RemoteFixture.options(tmp.resolve("cache"), 16 << 20, 0); // no fetch ahead of reads
    remote = new RemoteSource(options);
    stats = remote.stats();
    try (VerifiedImage image = open()) {
      VerifiedReader r = image.reader();
      read(r, 0, SIZE / 2);
      data.replace(content); // a new version, the same bytes
      assertThatThrownBy(() -> read(r, SIZE / 2, 4096))
          .isInstanceOf(ObjectChangedException.class)
          .hasMessageContaining("changed since open");
      int after = data.requests.get();
      assertThatThrownBy(() -> read(r, SIZE / 2 + 8192, 4096))
          .isInstanceOf(ObjectChangedException.class);
      assertThat(data.requests.get()).isEqualTo(after);
      assertThat(r.corruptionCount()).isZero();
    }
    remote.close();
    options = options.withOnChange(RemoteOptions.OnChange.REOPEN);
    remote = new RemoteSource(options);
    stats = remote.stats();
    try (VerifiedImage image = open()) {
      VerifiedReader r = image.reader();
      read(r, 0, SIZE / 2);
      data.replace(content);
      assertThat(read(r, 0, SIZE)).isEqualTo(content);
      assertThat(r.corruptionCount()).isZero();
    }
  }
}
