package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.nbd.ServerLimits;
import org.jverity.testkit.Tool;
import org.jverity.verify.HashBlockCache;

/**
 * What a server process holds, measured as the kernel sees it (RssAnon in /proc/PID/status: the
 * heap and the JVM's own memory; the mapped image is file-backed page cache and not counted), with
 * the JVM options bin/jverity gives {@code open} (bin/lib.sh's jverity_server_java_opts). The
 * docs/serving.md says memory is the cache budget plus what the requests in flight hold; a JVM left
 * to its default heap held 280-505 MB after one copy of 1 GiB.
 */
class ServerMemoryTest {
  private static final long MIB = 1 << 20;

  /** The JVM outside its heap: code, classes (the AOT cache), thread stacks, malloc. */
  private static final long JVM_OUTSIDE_HEAP = 48 * MIB;

  @TempDir static Path dir;
  static Image big; // 512 MiB: one copy of it is 2048 requests of 256 KiB, 64 MiB asked for at once
  static Image small; // 64 MiB, for 16 clients at once

  /** A formatted image of random data (a copy's garbage is what grew the heap, not its bytes). */
  record Image(Path data, Path hash, String root) {
    static Image create(String name, int mib) throws IOException {
      Path data = dir.resolve(name + ".img");
      Path hash = dir.resolve(name + ".hash");
      SplittableRandom random = new SplittableRandom(mib);
      byte[] chunk = new byte[1 << 20];
      try (OutputStream out = Files.newOutputStream(data)) {
        for (int i = 0; i < mib; i++) {
          random.nextBytes(chunk);
          out.write(chunk);
        }
      }
      ToolRun r = Jverity.run("format", data.toString(), hash.toString());
      assertThat(r.exitCode()).as(r.toString()).isZero();
      return new Image(data, hash, r.headerField("Root hash").strip());
    }

    ServerProcess open() throws Exception {
      return ServerProcess.startWithJvmOptions(
          dir,
          serverOptions("open"),
          "open",
          data.toString(),
          "x",
          hash.toString(),
          root,
          "--port",
          "0");
    }
  }

  @BeforeAll
  static void images() throws Exception {
    Tool.of("nbdcopy").require();
    big = Image.create("big", 512);
    small = Image.create("small", 64);
  }

  /**
   * nbdcopy of the export to nowhere: it exits 0 only if every byte verified (else the server sends
   * EIO).
   */
  private static Process copy(String uri) throws IOException {
    return Clients.start("nbdcopy", uri, "null:");
  }

  private static void assertCopied(Process copy) throws Exception {
    assertThat(copy.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(copy.exitValue())
        .as("nbdcopy: %s", new String(copy.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
        .isZero();
  }

  @Test
  void aCopyOfAnExportLeavesTheServerWithinItsCacheBudgetPlus64MibAndAnIdleServerGivesMemoryBack()
      throws Exception {
    try (ServerProcess server = big.open()) {
      assertCopied(copy(server.line()));
      long afterCopy = rssAnon(server.pid());
      assertThat(afterCopy)
          .as("RssAnon after one copy, MiB; stderr: %s", server.stderr())
          .isLessThanOrEqualTo(HashBlockCache.DEFAULT_CAPACITY_BYTES + 64 * MIB);

      // The last client left: the server collects its heap and returns what is free.
      long idle = afterCopy;
      for (long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(25);
          idle > afterCopy - 8 * MIB && System.nanoTime() < until; ) {
        Thread.sleep(500);
        idle = rssAnon(server.pid());
      }
      assertThat(idle)
          .as("RssAnon once idle (after copy: %d MiB)", afterCopy / MIB)
          .isLessThanOrEqualTo(afterCopy - 8 * MIB);
      assertThat(server.terminate()).isZero();
    }
  }

  @Test
  void sixteenClientsCopyingAtOnceStayWithinTheConfiguredBudgets() throws Exception {
    try (ServerProcess server = small.open()) {
      String uri = server.line();
      List<Process> copies = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        copies.add(copy(uri)); // 4 connections x 64 requests each
      }
      long peak = 0;
      while (copies.stream().anyMatch(Process::isAlive)) {
        peak = Math.max(peak, rssAnon(server.pid()));
        Thread.sleep(100);
      }
      for (Process p : copies) {
        assertCopied(p);
      }
      long bound =
          HashBlockCache.DEFAULT_CAPACITY_BYTES
              + ServerLimits.DEFAULT_BYTES_IN_FLIGHT
              + 32 * MIB
              + JVM_OUTSIDE_HEAP;
      assertThat(peak)
          .as("peak RssAnon with 16 clients; stderr: %s", server.stderr())
          .isLessThanOrEqualTo(bound);
      assertThat(server.terminate()).isZero();
    }
  }

  @Test
  void theDefaultHeapIsTheCacheAndInFlightBudgetsPlus32Mib() throws Exception {
    long xmx =
        HashBlockCache.DEFAULT_CAPACITY_BYTES + ServerLimits.DEFAULT_BYTES_IN_FLIGHT + 32 * MIB;
    assertThat(serverOptions("open", "d", "n", "h", "r")).contains("-Xmx" + xmx / MIB + "m");
    assertThat(serverOptions("open", "d", "n", "h", "r", "--cache-size", "1G"))
        .contains("-Xmx" + (xmx + (1 << 30) - HashBlockCache.DEFAULT_CAPACITY_BYTES) / MIB + "m");
    Path config =
        Files.writeString(
            dir.resolve("s.ini"), "[generic]\ncache-size = 256M\n[x]\ncache-size = 1G\n");
    assertThat(serverOptions("serve", config.toString()))
        .contains("-Xmx" + (xmx + 192 * MIB) / MIB + "m");
    assertThat(serverOptions("format", "d", "h")).isEmpty();
  }

  /** bin/lib.sh's jverity_server_java_opts for these arguments, one option per element. */
  static List<String> serverOptions(String... args) throws Exception {
    return LauncherScripts.run(
        "jverity_server_java_opts \"$@\" && printf '%s\\n' ${JVERITY_SERVER_OPTS[@]+\"${JVERITY_SERVER_OPTS[@]}\"}",
        args);
  }

  /** RssAnon of a process, bytes. */
  static long rssAnon(long pid) throws IOException {
    Matcher m =
        Pattern.compile("(?m)^RssAnon:\\s+([0-9]+) kB$")
            .matcher(Files.readString(Path.of("/proc/" + pid + "/status")));
    assertThat(m.find()).as("RssAnon in /proc/%d/status", pid).isTrue();
    return Long.parseLong(m.group(1)) * 1024;
  }
}
