package org.jverity.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.Clients;
import org.jverity.cli.FormattedImage;
import org.jverity.cli.ServerProcess;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Nginx;

/**
 * A crash mid-read: {@code kill -9} of a server while nbdcopy reads from it through a slow origin
 * (nginx's {@code /slow/}), once the cache directory has recorded chunks; a restart over the same
 * directory then serves the whole image byte-identical (no torn chunk is ever returned: each is
 * verified), fetching fewer bytes from the origin than a cold read over a cache of its own; and a
 * third run, warm, makes fewer GETs than the cold read, as nginx's access log counts them.
 */
class KillAndRestartEndToEndTest {
  private static final int BLOCKS = 4096; // 16 MiB
  private static final int SLOW_MILLIS = 300;

  /** Chunks recorded before the kill: more than the tree's (3), so some data chunks are cached. */
  private static final int RECORDED_AT_KILL = 8;

  @TempDir Path dir;

  @Test
  void killedMidReadThenRestartedOverTheSameCacheReadsRightAndHitsTheCache() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", BLOCKS);
    String expected = NbdClients.sha256(image.data());
    Path cache = dir.resolve("cache");
    try (Nginx nginx =
        Nginx.start(dir.resolve("nginx"), Nginx.Faults.DEFAULTS.withSlow(SLOW_MILLIS))) {
      Files.copy(image.data(), nginx.www().resolve("disk.img"));
      Files.copy(image.hash(), nginx.www().resolve("disk.hash"));
      String data = nginx.url("slow/disk.img").toString();
      String hash = nginx.url("slow/disk.hash").toString();
      long total = Files.size(image.data()) + Files.size(image.hash());

      // 0. A cold full read over a cache of its own: what the origin serves without a cache.
      int start = nginx.accessLog().size();
      try (ServerProcess cold = server("0", data, hash, image.root(), dir.resolve("cold-cache"))) {
        assertThat(NbdClients.sha256OfCopy(cold.line())).isEqualTo(expected);
        assertThat(cold.terminate()).as(cold.stderr()).isZero();
      }
      List<Nginx.Access> coldRun = gets(nginx.accessLog(), start);
      long coldBytes = coldRun.stream().mapToLong(Nginx.Access::bytes).sum();
      assertThat(coldBytes).isGreaterThanOrEqualTo(Files.size(image.data()));

      // 1. A cold read, killed once the cache has recorded some data chunks.
      boolean copyWasRunning;
      try (ServerProcess first = server("1", data, hash, image.root(), cache)) {
        String uri = first.line();
        Process copy = Clients.start("nbdcopy", uri, dir.resolve("partial.img").toString());
        try {
          long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
          while (CacheIndex.recorded(cache) < RECORDED_AT_KILL
              && copy.isAlive()
              && System.nanoTime() < until) {
            Thread.sleep(20);
          }
          copyWasRunning = copy.isAlive();
          first.kill();
          assertThat(copy.waitFor(60, TimeUnit.SECONDS)).as("nbdcopy ended").isTrue();
        } finally {
          copy.destroyForcibly();
        }
      }
      assertThat(copyWasRunning)
          .as("nbdcopy was still reading when the server was killed")
          .isTrue();
      int recorded = CacheIndex.recorded(cache);
      assertThat(recorded).as("chunks recorded before the kill").isPositive();

      // 2. Restarted over the same cache: every byte right, less fetched than the image. The
      // killed server's requests still sleeping in nginx are logged first.
      Thread.sleep(2L * SLOW_MILLIS + 500);
      int before = nginx.accessLog().size();
      try (ServerProcess second = server("2", data, hash, image.root(), cache)) {
        assertThat(NbdClients.sha256OfCopy(second.line())).isEqualTo(expected);
        Map<String, Object> remote = second.remote("disk");
        assertThat((Long) remote.get("cacheHits")).as("%s", remote).isPositive();
        assertThat(second.messages())
            .as("no corruption said: %s", second.stderr())
            .noneMatch(l -> l.contains("corrupt"));
        assertThat(second.terminate()).as(second.stderr()).isZero();
      }
      List<Nginx.Access> secondRun = gets(nginx.accessLog(), before);
      long secondBytes = secondRun.stream().mapToLong(Nginx.Access::bytes).sum();
      assertThat(secondBytes)
          .as("the restart took %d recorded chunks from the cache: %s", recorded, secondRun)
          .isLessThan(coldBytes);
      assertThat(secondRun.size())
          .as("GETs of the restart, of the cold read %s", coldRun)
          .isLessThanOrEqualTo(coldRun.size());

      // 3. Warm: fewer origin requests than the restart made.
      int afterSecond = nginx.accessLog().size();
      try (ServerProcess third = server("3", data, hash, image.root(), cache)) {
        assertThat(NbdClients.sha256OfCopy(third.line())).isEqualTo(expected);
        assertThat(third.terminate()).as(third.stderr()).isZero();
      }
      List<Nginx.Access> thirdRun = gets(nginx.accessLog(), afterSecond);
      assertThat(thirdRun.size())
          .as("GETs of the warm run %s, of the cold read %s", thirdRun, coldRun)
          .isLessThan(coldRun.size());
      System.out.printf(
          "KillAndRestart: cold %d GETs %d bytes; %d chunks recorded at the kill; restart %d GETs"
              + " %d bytes; warm %d GETs %d bytes (image and tree %d bytes)%n",
          coldRun.size(),
          coldBytes,
          recorded,
          secondRun.size(),
          secondBytes,
          thirdRun.size(),
          thirdRun.stream().mapToLong(Nginx.Access::bytes).sum(),
          total);
    }
  }

  private ServerProcess server(String run, String data, String hash, String root, Path cache)
      throws Exception {
    return ServerProcess.start(
        dir.resolve("server-" + run),
        Map.of(),
        "open",
        data,
        "disk",
        hash,
        root,
        "--port",
        "0",
        "--cache-dir",
        cache.toString());
  }

  /** The GETs logged after the first {@code from} lines. */
  private static List<Nginx.Access> gets(List<Nginx.Access> log, int from) {
    return log.subList(from, log.size()).stream().filter(a -> a.method().equals("GET")).toList();
  }
}
