package org.jverity.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.jverity.io.BlockDevice;
import org.jverity.remote.cache.ChunkCache;

/**
 * A process killed with SIGKILL while it writes its disk cache: the next process over the same
 * directory reads every byte right (what the dead one left is whole, or dropped as a miss).
 */
class CacheKillTest extends RemoteFixture {
  private static String where(Class<?> c) throws Exception {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }

  @Test
  void aProcessKilledMidWriteLeavesACacheThatReadsRight() throws Exception {
    Path dir = tmp.resolve("cache");
    long max = 1 << 20; // far below the object: every read evicts and rewrites slots
    String classPath =
        String.join(
            File.pathSeparator,
            where(CacheWriter.class),
            where(RemoteDevice.class),
            where(BlockDevice.class));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // FileOrigin reads through the core's FileDevice (pread, bound with FFM): allowed, not warned
    // of.
    command.addAll(
        List.of(
            "-Xmx128m",
            "--enable-native-access=ALL-UNNAMED",
            "-cp",
            classPath,
            CacheWriter.class.getName()));
    command.addAll(List.of(stored.file.toString(), dir.toString(), Long.toString(max)));
    for (int round = 0; round < 3; round++) {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
        assertThat(out.readLine()).as("the writer started").isEqualTo("ready");
        Thread.sleep(200 + 150 * round);
        p.destroyForcibly(); // SIGKILL
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      }
      RemoteOptions o = options(dir, max, 0);
      ChunkCache cache = cache(o);
      assertThat(cache.chunks()).as("the dead process's chunks were kept").isPositive();
      RemoteDevice d = device(cache, o);
      for (long at = 0; at < SIZE; at += 4096) {
        int n = (int) Math.min(4096, SIZE - at);
        assertThat(read(d, at, n)).as("%d bytes at %d", n, at).isEqualTo(expected(at, n));
      }
      closeAll();
      open.clear();
    }
  }
}
