package org.jverity.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.JsonCheck;
import org.jverity.cli.Jverity;
import org.jverity.cli.TestImage;
import org.jverity.cli.ToolRun;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Nginx;

/**
 * The fault matrix at the command level: an image served by nginx through one fault location at a
 * time, read by {@code jverity read} (in-process) or served by {@code jverity open} (a child) to
 * nbdcopy. Each test asserts the outcome (the right bytes, or a refusal) and what the user is told:
 * the exit code, the one line, the counters of {@code --json} and {@code status}.
 */
class FaultsEndToEndTest {
  private static final int BLOCKS = 512; // 2 MiB

  @TempDir Path dir;
  private Nginx nginx;
  private TestImage image;

  private void start(Nginx.Faults faults) throws Exception {
    image = TestImage.create(dir, "disk", BLOCKS);
    nginx = Nginx.start(dir.resolve("nginx"), faults);
    Files.copy(image.data(), nginx.www().resolve("disk.img"));
    Files.copy(image.hash(), nginx.www().resolve("disk.hash"));
  }

  @AfterEach
  void stop() {
    if (nginx != null) {
      nginx.close();
    }
  }

  /** {@code jverity read LOCATION/disk.img LOCATION/disk.hash ROOT -o out [extra...]}. */
  private ToolRun read(String location, String... extra) {
    List<String> args = new ArrayList<>();
    args.add("read");
    args.add(nginx.url(location + "disk.img").toString());
    args.add(nginx.url(location + "disk.hash").toString());
    args.add(image.root());
    args.add("-o");
    args.add(dir.resolve("out.img").toString());
    args.addAll(List.of(extra));
    ToolRun r = Jverity.run(args);
    System.out.println("FaultsEndToEndTest " + location + ": " + r);
    return r;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> remote(ToolRun json) throws Exception {
    Map<String, Object> m = JsonCheck.stdout(json);
    assertThat(m).as("%s", json).containsKey("remote");
    return (Map<String, Object>) m.get("remote");
  }

  private void assertReadRight(ToolRun r) throws Exception {
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.OK);
    assertThat(Files.readAllBytes(dir.resolve("out.img")))
        .isEqualTo(Files.readAllBytes(image.data()));
  }

  private List<Nginx.Access> logOf(String location) {
    return nginx.accessLog().stream().filter(a -> a.uri().startsWith("/" + location)).toList();
  }

  @Test
  void twentyMillisecondsPerRequestStillReadsRight() throws Exception {
    start(Nginx.Faults.DEFAULTS.withSlow(20));
    ToolRun r = read("slow/", "--json");
    assertReadRight(r);
    Map<String, Object> remote = remote(r);
    assertThat((Long) remote.get("retries")).as("%s", remote).isZero();
    assertThat((Long) remote.get("failures")).as("%s", remote).isZero();
    List<Nginx.Access> log = logOf("slow/");
    assertThat(log).isNotEmpty().allMatch(a -> a.seconds() >= 0.019, "took the 20 ms");
    assertThat((long) log.size())
        .as("requests (HEADs and GETs) the origin served")
        .isEqualTo((Long) remote.get("requests"));
  }

  @Test
  void fiveOhThreesAreRetriedAndCountedInStatus() throws Exception {
    start(Nginx.Faults.DEFAULTS.withFlaky(2, 0));
    try (ChildServer server =
        ChildServer.start(
            dir.resolve("server"),
            Map.of(),
            "open",
            nginx.url("flaky/disk.img").toString(),
            "disk",
            nginx.url("flaky/disk.hash").toString(),
            image.root(),
            "--port",
            "0")) {
      String uri = server.line();
      assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(NbdClients.sha256(image.data()));
      Map<String, Object> remote = server.remote("disk");
      long served503 = logOf("flaky/").stream().filter(a -> a.status() == 503).count();
      System.out.println("FaultsEndToEndTest 503: " + remote + "; 503s served " + served503);
      assertThat(served503).isPositive();
      assertThat((Long) remote.get("retries")).as("%s", remote).isPositive();
      assertThat((Long) remote.get("failures")).as("%s", remote).isZero();
      ToolRun text =
          Jverity.run("status", "disk", "--runtime-dir", dir.resolve("server/run").toString());
      System.out.println("FaultsEndToEndTest 503 status: " + text);
      assertThat(text.stdout())
          .containsPattern("(?m)^  origin: +[0-9]+ requests, [0-9]+ bytes, [1-9][0-9]* retries");
      assertThat(server.terminate()).as(server.stderr()).isZero();
      System.out.println("FaultsEndToEndTest 503 server stderr: " + server.stderr());
    }
  }

  @Test
  void droppedConnectionsAreRetried() throws Exception {
    start(Nginx.Faults.DEFAULTS.withFlaky(0, 2));
    ToolRun r = read("flaky/", "--json");
    assertReadRight(r);
    Map<String, Object> remote = remote(r);
    assertThat(logOf("flaky/")).anyMatch(a -> a.status() == 444);
    assertThat((Long) remote.get("retries")).as("%s", remote).isPositive();
    assertThat((Long) remote.get("failures")).as("%s", remote).isZero();
  }

  @Test
  void aTruncatedBodyIsRetried() throws Exception {
    start(Nginx.Faults.DEFAULTS.withTruncate(1000, 2));
    ToolRun r = read("trunc/", "--json");
    assertReadRight(r);
    Map<String, Object> remote = remote(r);
    assertThat((Long) remote.get("retries")).as("%s", remote).isPositive();
    assertThat((Long) remote.get("failures")).as("%s", remote).isZero();
  }

  @Test
  void aBodyTruncatedEveryTimeFailsInOneLine() throws Exception {
    start(Nginx.Faults.DEFAULTS.withTruncate(1000, 1));
    ToolRun r = read("trunc/");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderrLines().get(0)).startsWith("jverity: ").contains("/trunc/disk.");
    assertThat(dir.resolve("out.img")).doesNotExist();
  }

  @Test
  void aServerThatIgnoresRangesIsRefusedAtOpenInOneLine() throws Exception {
    start(Nginx.Faults.DEFAULTS);
    ToolRun r = read("norange/");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderrLines().get(0)).startsWith("jverity: ").contains("/norange/disk.", "200");
    assertThat(dir.resolve("out.img")).doesNotExist();
    List<String> server = refusedByOpen("norange/");
    assertThat(server.get(0)).contains("/norange/disk.", "200");
  }

  @Test
  void aWrongContentRangeIsRefusedInOneLine() throws Exception {
    start(Nginx.Faults.DEFAULTS);
    ToolRun r = read("badrange/");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderrLines().get(0))
        .startsWith("jverity: ")
        .contains("/badrange/disk.", "Content-Range");
    assertThat(dir.resolve("out.img")).doesNotExist();
    List<String> server = refusedByOpen("badrange/");
    assertThat(server.get(0)).contains("/badrange/disk.", "Content-Range");
  }

  /** {@code jverity open} over {@code location} exits at once, saying one line; that line. */
  private List<String> refusedByOpen(String location) throws Exception {
    try (ChildServer server =
        ChildServer.start(
            dir.resolve("server"),
            Map.of(),
            "open",
            nginx.url(location + "disk.img").toString(),
            "disk",
            nginx.url(location + "disk.hash").toString(),
            image.root(),
            "--port",
            "0")) {
      int code = server.waitFor();
      System.out.println(
          "FaultsEndToEndTest open " + location + ": exit " + code + ": " + server.stderr());
      assertThat(code).as(server.stderr()).isEqualTo(ExitCode.IO_ERROR);
      assertThat(server.messages()).as(server.stderr()).hasSize(1);
      return server.messages();
    }
  }

  @Test
  void aCorruptedCacheChunkIsRereadFromTheOriginAndNeverReturned() throws Exception {
    start(Nginx.Faults.DEFAULTS);
    Path cache = dir.resolve("cache");
    ToolRun cold = read("", "--json", "--cache-dir", cache.toString());
    assertReadRight(cold);
    int[] slots = CacheIndex.slots(cache);
    assertThat(slots).as("chunks cached").isNotEmpty();
    // Every cached chunk gets one byte flipped in each of its 4 KiB blocks.
    try (var ch =
        java.nio.channels.FileChannel.open(
            cache.resolve("chunks"),
            java.nio.file.StandardOpenOption.READ,
            java.nio.file.StandardOpenOption.WRITE)) {
      for (int s : slots) {
        for (int at = 100; at < CacheIndex.CHUNK; at += 4096) {
          long pos = (long) s * CacheIndex.CHUNK + at;
          java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
          if (ch.read(b, pos) == 1) {
            b.put(0, (byte) (b.get(0) ^ 0x01));
            ch.write(b.rewind(), pos);
          }
        }
      }
    }
    Files.delete(dir.resolve("out.img"));
    int before = nginx.accessLog().size();
    ToolRun warm = read("", "--json", "--cache-dir", cache.toString());
    assertReadRight(warm);
    assertThat(warm.stderr()).as("no corruption reported").doesNotContain("corrupt");
    Map<String, Object> remote = remote(warm);
    System.out.println("FaultsEndToEndTest corrupted cache: " + remote);
    assertThat((Long) remote.get("cacheHits")).as("%s", remote).isPositive();
    assertThat((Long) remote.get("rereads")).as("%s", remote).isPositive();
    assertThat(nginx.accessLog().size()).as("rereads went to the origin").isGreaterThan(before);

    // Once more over the same directory: still right (whether the rereads healed the cache is
    // printed for the notes, not asserted).
    Files.delete(dir.resolve("out.img"));
    ToolRun again = read("", "--json", "--cache-dir", cache.toString());
    assertReadRight(again);
    assertThat(again.stderr()).doesNotContain("corrupt");
    System.out.println("FaultsEndToEndTest corrupted cache, third read: " + remote(again));
  }

  @Test
  void anExpiredTokenIsOneLine() throws Exception {
    start(Nginx.Faults.DEFAULTS);
    ToolRun r = read("expired/");
    assertThat(r.exitCode()).as("%s", r).isNotZero();
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderrLines().get(0)).startsWith("jverity: ").contains("/expired/disk.");
  }
}
