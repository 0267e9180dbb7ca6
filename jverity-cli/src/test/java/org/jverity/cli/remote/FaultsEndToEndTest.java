package org.jverity.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.FormattedImage;
import org.jverity.cli.JsonCheck;
import org.jverity.cli.Jverity;
import org.jverity.cli.ServerProcess;
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
  private FormattedImage image;

  private void start(Nginx.Faults faults) throws Exception {
    image = FormattedImage.create(dir, "disk", BLOCKS);
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
    try (ServerProcess server =
        ServerProcess.start(
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
    assertDropsResent(remote(r));
  }

  /**
   * Every connection nginx closed without an answer (444) was sent again: by jverity, counted in
   * {@code retries}, or by the JDK's HttpClient itself, which resends an idempotent request once
   * when a kept-alive connection closes before answering, unseen by jverity (the access log then
   * has a line more than jverity's {@code requests}, which counts every attempt it made).
   */
  private void assertDropsResent(Map<String, Object> remote) {
    List<Nginx.Access> log = logOf("flaky/");
    long drops = log.stream().filter(a -> a.status() == 444).count();
    long requests = (Long) remote.get("requests");
    long retries = (Long) remote.get("retries");
    long byTheClient = log.size() - requests;
    System.out.printf(
        "FaultsEndToEndTest drops: %d 444s, %d log lines, requests %d, retries %d%n",
        drops, log.size(), requests, retries);
    assertThat(drops).as("connections dropped").isPositive();
    assertThat(retries + byTheClient).as("resends of %s; log %s", remote, log).isEqualTo(drops);
    assertThat((Long) remote.get("failures")).as("%s", remote).isZero();
  }

  /**
   * Dropped connections and cut bodies through {@code serve}: one config, [generic]'s cache
   * directory under both exports, each export's retries in its own {@code status}.
   */
  @Test
  void serveRetriesDroppedConnectionsAndCutBodiesPerExport() throws Exception {
    start(Nginx.Faults.DEFAULTS.withFlaky(0, 2).withTruncate(1000, 2));
    Path conf =
        Files.writeString(
            dir.resolve("serve.conf"),
            """
            [generic]
            port = 0
            cache-dir = cache
            [dropped]
            data = %s
            hash = %s
            root-hash = %s
            [cut]
            data = %s
            hash = %s
            root-hash = %s
            """
                .formatted(
                    nginx.url("flaky/disk.img"),
                    nginx.url("flaky/disk.hash"),
                    image.root(),
                    nginx.url("trunc/disk.img"),
                    nginx.url("trunc/disk.hash"),
                    image.root()));
    try (ServerProcess server =
        ServerProcess.start(dir.resolve("server"), Map.of(), "serve", conf.toString(), "--json")) {
      List<String> uris = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        uris.add((String) JsonCheck.object(server.line()).get("uri"));
      }
      String expected = NbdClients.sha256(image.data());
      for (String uri : uris) {
        assertThat(NbdClients.sha256OfCopy(uri)).as(uri).isEqualTo(expected);
      }
      Map<String, Object> dropped = server.remote("dropped");
      Map<String, Object> cut = server.remote("cut");
      System.out.println("FaultsEndToEndTest serve: dropped " + dropped + "; cut " + cut);
      assertThat(dropped.get("devices").toString())
          .contains("/flaky/disk.")
          .doesNotContain("/trunc/");
      assertThat(cut.get("devices").toString()).contains("/trunc/disk.").doesNotContain("/flaky/");
      // Each export counts its own traffic (the two share one cache): the resends are checked over
      // both, as the log has both: every 444 and every cut body was sent again, by jverity or (a
      // 444 only) by the JDK's client.
      List<Nginx.Access> log = nginx.accessLog();
      long drops = log.stream().filter(a -> a.status() == 444).count();
      long cuts =
          log.stream()
              .filter(a -> a.uri().startsWith("/trunc/") && a.method().equals("GET"))
              .filter(a -> a.range() != null && a.bytes() < answerLength(a))
              .count();
      long requests = (Long) cut.get("requests") + (Long) dropped.get("requests");
      long retries = (Long) cut.get("retries") + (Long) dropped.get("retries");
      assertThat((Long) dropped.get("requests")).isPositive();
      assertThat((Long) cut.get("requests")).isPositive();
      long byTheClient = log.size() - requests;
      System.out.printf(
          "FaultsEndToEndTest serve: %d 444s, %d cut bodies, %d log lines, requests %d, retries"
              + " %d%n",
          drops, cuts, log.size(), requests, retries);
      assertThat(drops).isPositive();
      assertThat(cuts).isPositive();
      assertThat(retries + byTheClient).as("resends; log %s", log).isEqualTo(drops + cuts);
      assertThat((Long) cut.get("failures")).as("%s", cut).isZero();
      assertThat(dir.resolve("cache/index")).exists();
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
  }

  /** The bytes {@code bytes=A-B} asks for. */
  /** The body a range request should get: the range, clamped at the end of the file served. */
  private long answerLength(Nginx.Access a) {
    String[] ab = a.range().substring("bytes=".length()).split("-");
    long start = Long.parseLong(ab[0]);
    String name = a.uri().substring(a.uri().lastIndexOf('/') + 1);
    try {
      long size = Files.size(nginx.www().resolve(name));
      return Math.min(Long.parseLong(ab[1]) + 1, size) - start;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
    assertThat(r.stderrLines())
        .as("%s", r)
        .containsExactly(
            "jverity: "
                + nginx.url("trunc/disk.hash")
                + ": size probe (bytes 0-65535): body cut short after 1000 of 24576 bytes after 5 attempts");
    assertThat(dir.resolve("out.img")).doesNotExist();
  }

  @Test
  void aServerThatIgnoresRangesIsRefusedAtOpenInOneLine() throws Exception {
    start(Nginx.Faults.DEFAULTS);
    ToolRun r = read("norange/");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.IO_ERROR);
    String line =
        "jverity: "
            + nginx.url("norange/disk.hash")
            + ": size probe (bytes 0-65535): answered 200 to a range request (the server ignores"
            + " ranges)";
    assertThat(r.stderrLines()).as("%s", r).containsExactly(line);
    assertThat(dir.resolve("out.img")).doesNotExist();
    assertThat(refusedByOpen("norange/")).containsExactly(line);
  }

  @Test
  void aWrongContentRangeIsRefusedInOneLine() throws Exception {
    start(Nginx.Faults.DEFAULTS);
    ToolRun r = read("badrange/");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.IO_ERROR);
    String line =
        "jverity: "
            + nginx.url("badrange/disk.hash")
            + ": size probe (bytes 0-65535): answered Content-Range bytes 1-24576/24576";
    assertThat(r.stderrLines()).as("%s", r).containsExactly(line);
    assertThat(dir.resolve("out.img")).doesNotExist();
    assertThat(refusedByOpen("badrange/")).containsExactly(line);
  }

  /** {@code jverity open} over {@code location} exits at once, saying one line; that line. */
  private List<String> refusedByOpen(String location) throws Exception {
    try (ServerProcess server =
        ServerProcess.start(
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
    try (FileChannel ch =
        FileChannel.open(
            cache.resolve("chunks"), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      for (int s : slots) {
        for (int at = 100; at < CacheIndex.CHUNK; at += 4096) {
          long pos = (long) s * CacheIndex.CHUNK + at;
          ByteBuffer b = ByteBuffer.allocate(1);
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

    // Once more over the same directory: a recheck fetches only its block and drops the bad chunk,
    // so this run fetches the dropped chunks whole and rereads nothing; the one after fetches
    // nothing but the two size probes of open (a chunk of each device at most).
    Files.delete(dir.resolve("out.img"));
    ToolRun again = read("", "--json", "--cache-dir", cache.toString());
    assertReadRight(again);
    assertThat(again.stderr()).doesNotContain("corrupt");
    Map<String, Object> healed = remote(again);
    System.out.println("FaultsEndToEndTest corrupted cache, third read: " + healed);
    assertThat((Long) healed.get("rereads")).as("the cache healed: %s", healed).isZero();
    Files.delete(dir.resolve("out.img"));
    ToolRun last = read("", "--json", "--cache-dir", cache.toString());
    assertReadRight(last);
    Map<String, Object> kept = remote(last);
    System.out.println("FaultsEndToEndTest corrupted cache, fourth read: " + kept);
    assertThat((Long) kept.get("rereads")).as("%s", kept).isZero();
    assertThat((Long) kept.get("bytes")).as("%s", kept).isLessThanOrEqualTo(2L * CacheIndex.CHUNK);
  }

  @Test
  void slowDownToEveryGetFailsInOneLineAfterTheRetries() throws Exception {
    start(Nginx.Faults.DEFAULTS);
    ToolRun r = read("slowdown/");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderrLines())
        .as("%s", r)
        .containsExactly(
            "jverity: "
                + nginx.url("slowdown/disk.hash")
                + ": size probe (bytes 0-65535): HTTP 503 SlowDown after 5 attempts");
    assertThat(logOf("slowdown/").stream().filter(a -> a.status() == 503).count())
        .as("the first GET and its 4 retries")
        .isGreaterThanOrEqualTo(5);
  }

  /**
   * {@code /expired/} answers S3's ExpiredToken; as a plain http:// origin nothing re-reads
   * credentials, so it is one line: what an s3:// origin would say after its one re-read.
   */
  @Test
  void anExpiredTokenIsOneLine() throws Exception {
    start(Nginx.Faults.DEFAULTS);
    ToolRun r = read("expired/");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderrLines())
        .as("%s", r)
        .containsExactly(
            "jverity: "
                + nginx.url("expired/disk.hash")
                + ": size probe (bytes 0-65535): HTTP 400 ExpiredToken");
  }
}
