package org.jverity.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.image.ParamOverrides;
import org.jverity.image.RootCheck;
import org.jverity.image.VerifiedImage;
import org.jverity.image.VerityImage;
import org.jverity.testkit.Nginx;
import org.jverity.testkit.Veritysetup;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;

/**
 * What a first verified read costs in requests and round trips, counted where they are served
 * (nginx's access log, each request delayed {@value #DELAY_MS} ms so that requests in flight
 * together overlap there): the data and hash devices' size probes go out together and bring the
 * superblock with them; the tree's upper levels, the data block and its level-0 hash block follow
 * in one more round.
 */
class FirstReadRoundTripsTest {
  static final int DELAY_MS = 300;

  /** 128 MiB in 8 KiB chunks: the superblock and upper levels span two chunks, as 1 GiB's do. */
  static final long SIZE = 128L << 20;

  static final int CHUNK = 8 << 10;

  @TempDir Path tmp;

  @Test
  void openAndAFirstVerifiedReadTakeTwoRoundsOfFewRequests() throws Exception {
    firstRead(false);
  }

  /**
   * The same through the scheduler NBD serves with (issue 29): a cold 4 KiB read is small enough to
   * be tried inline, but its hash blocks are not cached, so it goes to the pool before reading
   * anything, its data and hash blocks fetched together. An inline attempt that read the data
   * first, then fell back and waited for the hash blocks, took a third round. The pool's path also
   * starts the loads of its prefetch cluster's hash blocks, the kernel's {@code
   * verity_prefetch_io}: one request more, in the same round.
   */
  @Test
  void aFirstReadThroughTheSchedulerTakesNoMoreRounds() throws Exception {
    firstRead(true);
  }

  private void firstRead(boolean throughScheduler) throws Exception {
    Path data = tmp.resolve("data.img");
    Path hash = tmp.resolve("hash.img");
    long offset = 100L << 20;
    byte[] block = new byte[4096];
    new Random(16).nextBytes(block);
    try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
      f.setLength(SIZE); // sparse but for the block read
      f.seek(offset);
      f.write(block);
    }
    String out = Veritysetup.run("format", data.toString(), hash.toString()).ok().out();
    Matcher m = Pattern.compile("Root hash:\\s+([0-9a-f]+)").matcher(out);
    assertThat(m.find()).as(out).isTrue();
    RemoteOptions options =
        RemoteOptions.builder()
            .cache(null, 64L << 20)
            .chunkSize(CHUNK)
            .readaheadMax(1 << 20)
            .build();
    try (Nginx n = Nginx.start(tmp.resolve("nginx"), Nginx.Faults.DEFAULTS.withSlow(DELAY_MS));
        RemoteSource source = new RemoteSource(options)) {
      Files.copy(data, n.www().resolve("data.img"));
      Files.copy(hash, n.www().resolve("hash.img"));
      byte[] got = new byte[4096];
      try (VerifiedImage image =
          VerityImage.open(
                  source,
                  n.url("slow/data.img").toString(),
                  n.url("slow/hash.img").toString(),
                  ParamOverrides.NONE,
                  m.group(1),
                  null,
                  RootCheck.NONE)
              .reader(new HashBlockCache(1 << 20), ReaderOptions.DEFAULTS)) {
        if (throughScheduler) {
          image.scheduler().read(offset, got, 0, got.length);
        } else {
          image.reader().read(offset, got, 0, got.length);
        }
      }
      assertThat(got).isEqualTo(block);
      List<Nginx.Access> log = new ArrayList<>(n.accessLog());
      log.sort(Comparator.comparingDouble(Nginx.Access::start));
      assertThat(log).as("%s", log).allMatch(a -> a.method().equals("GET") && a.status() == 206);
      // two probes (each the first chunk), the upper levels' second chunk, the data block's chunk
      // and its level-0 hash block's chunk
      assertThat(log).as("%s", log).hasSizeLessThanOrEqualTo(throughScheduler ? 6 : 5);
      List<Nginx.Access> probes =
          log.stream().filter(a -> a.range().startsWith("bytes=0-")).toList();
      assertThat(probes)
          .extracting(Nginx.Access::uri)
          .containsExactlyInAnyOrder("/slow/data.img", "/slow/hash.img");
      assertThat(probes.get(1).start()).as("the probes overlap").isLessThan(probes.get(0).end());
      assertThat(rounds(log)).as("%s", log).isLessThanOrEqualTo(2);
      assertThat(source.stats().requests.sum()).isEqualTo(log.size());
    }
  }

  /** Rounds of requests in flight together: a round ends when its first request is answered. */
  static int rounds(List<Nginx.Access> byStart) {
    int rounds = 0;
    double roundEnd = Double.NEGATIVE_INFINITY;
    for (Nginx.Access a : byStart) {
      if (a.start() >= roundEnd) {
        rounds++;
        roundEnd = a.end();
      } else {
        roundEnd = Math.min(roundEnd, a.end());
      }
    }
    return rounds;
  }
}
