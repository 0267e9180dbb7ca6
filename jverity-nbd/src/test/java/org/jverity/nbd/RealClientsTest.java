package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.testkit.Tool;
import org.jverity.verify.ReaderOptions;

/**
 * The server against real clients from Debian packages (nbdinfo, nbdcopy, qemu-img, fio), over TCP
 * and a Unix socket. One image for the class: 2,050 pseudo-random 4 KiB blocks, every 16th zero,
 * served under ignore_zero_blocks so that BLOCK_STATUS reports those blocks as holes.
 */
class RealClientsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final int BLOCK = 4096; // bytes
  private static final int BLOCKS =
      2050; // not a power of two: the last extent ends at an odd place

  @TempDir static Path dir;
  private static ServedImage image;
  private static byte[] bytes;

  @BeforeAll
  static void serve() throws IOException {
    image = ServedImage.random(dir, BLOCKS, ReaderOptions.DEFAULTS.withIgnoreZeroBlocks(true));
    bytes = Files.readAllBytes(image.data);
  }

  @AfterAll
  static void stop() throws IOException {
    if (image != null) {
      image.close();
    }
  }

  private static String uri(String transport) {
    return transport.equals("tcp") ? image.tcpUri() : image.unixUri();
  }

  @Test
  @DisplayName(
      "nbdinfo --json shows size, read-only, multi-conn, cache, df, structured replies, base:allocation, block sizes")
  void nbdinfoJson() {
    String json = Tool.of("nbdinfo").timeout(TIMEOUT).run("--json", image.tcpUri()).ok().out();

    assertThat(field(json, "export-size"))
        .as(json)
        .isEqualTo(String.valueOf((long) BLOCKS * BLOCK));
    assertThat(field(json, "structured")).as(json).isEqualTo("true");
    assertThat(field(json, "is_read_only")).as(json).isEqualTo("true");
    assertThat(field(json, "can_multi_conn")).as(json).isEqualTo("true");
    assertThat(field(json, "can_cache")).as(json).isEqualTo("true");
    assertThat(field(json, "can_df")).as(json).isEqualTo("true");
    assertThat(field(json, "can_flush")).as(json).isEqualTo("true");
    assertThat(field(json, "can_trim")).as(json).isEqualTo("false");
    assertThat(field(json, "can_zero")).as(json).isEqualTo("false");
    assertThat(field(json, "can_fua")).as(json).isEqualTo("false");
    assertThat(field(json, "block_size_minimum")).as(json).isEqualTo("1");
    assertThat(field(json, "block_size_preferred")).as(json).isEqualTo("4096");
    assertThat(field(json, "block_size_maximum")).as(json).isEqualTo("33554432");
    Matcher contexts = Pattern.compile("\"contexts\"\\s*:\\s*\\[([^]]*)]").matcher(json);
    assertThat(contexts.find()).as(json).isTrue();
    assertThat(contexts.group(1)).contains("\"base:allocation\"");
  }

  @ParameterizedTest(name = "over {0}")
  @ValueSource(strings = {"tcp", "unix"})
  @DisplayName("nbdcopy URI - streams the image: its SHA-256 is the image's")
  void nbdcopyToStdout(String transport) throws Exception {
    var r = Tool.of("nbdcopy").timeout(TIMEOUT).run(uri(transport), "-").ok();

    assertThat(r.stdout().length).isEqualTo(bytes.length);
    assertThat(sha256(r.stdout())).isEqualTo(sha256(bytes));
  }

  @ParameterizedTest(name = "over {0}")
  @ValueSource(strings = {"tcp", "unix"})
  @DisplayName(
      "qemu-img map --output=json: zero extents exactly at the image's zero blocks, data elsewhere")
  void qemuImgMap(String transport) {
    String json =
        Tool.of("qemu-img").timeout(TIMEOUT).run("map", "--output=json", uri(transport)).ok().out();
    Matcher m =
        Pattern.compile(
                "\"start\":\\s*(\\d+),\\s*\"length\":\\s*(\\d+),.*?\"zero\":\\s*(true|false),"
                    + "\\s*\"data\":\\s*(true|false)")
            .matcher(json);
    List<long[]> extents = new ArrayList<>(); // {start, length, zero, data}
    while (m.find()) {
      extents.add(
          new long[] {
            Long.parseLong(m.group(1)),
            Long.parseLong(m.group(2)),
            m.group(3).equals("true") ? 1 : 0,
            m.group(4).equals("true") ? 1 : 0
          });
    }
    assertThat(extents)
        .as(json)
        .isNotEmpty()
        .allSatisfy(
            e -> assertThat(e[2] + e[3]).as("zero xor data: %s", Arrays.toString(e)).isEqualTo(1));

    assertThat(holeMap(extents, e -> e[2] == 1)).as(json).isEqualTo(zeroBlocks());
  }

  @Test
  @DisplayName(
      "nbdinfo --map: type 3 (hole,zero) exactly at the zero blocks, type 0 (data) elsewhere")
  void nbdinfoMap() {
    String out = Tool.of("nbdinfo").timeout(TIMEOUT).run("--map", image.unixUri()).ok().out();
    List<long[]> extents = new ArrayList<>(); // {offset, length, type}
    for (String line : out.strip().split("\n")) {
      String[] f = line.strip().split("\\s+", 4); // offset length type description
      extents.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])});
      assertThat(f[3]).as(line).isEqualTo(f[2].equals("3") ? "hole,zero" : "data");
    }
    assertThat(extents).allSatisfy(e -> assertThat(e[2]).isIn(0L, 3L));

    assertThat(holeMap(extents, e -> e[2] == 3)).as(out).isEqualTo(zeroBlocks());
  }

  @Test
  @DisplayName(
      "fio's nbd engine: 2 jobs × 16 random 4 KiB reads in flight for 3 s, no errors, reads done")
  void fioRandomReads() {
    var r =
        Tool.of("fio")
            .timeout(Duration.ofSeconds(40))
            .run(
                "--name=r",
                "--ioengine=nbd",
                "--uri=" + image.unixUri(),
                "--rw=randread",
                "--bs=4k",
                "--iodepth=16",
                "--numjobs=2",
                "--time_based",
                "--runtime=3",
                "--readonly",
                "--output-format=json")
            .ok();
    String json = r.out();

    List<Long> errors = numbers(json, "\"error\"\\s*:\\s*(\\d+)");
    List<Long> readBytes = numbers(json, "\"read\"\\s*:\\s*\\{\\s*\"io_bytes\"\\s*:\\s*(\\d+)");
    assertThat(errors).as(r.toString()).hasSize(2).containsOnly(0L);
    assertThat(readBytes).as(r.toString()).hasSize(2).allSatisfy(n -> assertThat(n).isPositive());
  }

  /** Per block: is it a hole according to extents that must tile [0, size) exactly? */
  private static boolean[] holeMap(
      List<long[]> extents, java.util.function.Predicate<long[]> hole) {
    boolean[] holes = new boolean[BLOCKS];
    long at = 0;
    for (long[] e : extents) {
      assertThat(e[0]).as("extents are contiguous").isEqualTo(at);
      assertThat(e[0] % BLOCK).as("extent start %d is block aligned", e[0]).isZero();
      assertThat(e[1] % BLOCK).as("extent length %d is whole blocks", e[1]).isZero();
      for (long b = e[0] / BLOCK; b < (e[0] + e[1]) / BLOCK; b++) {
        holes[(int) b] = hole.test(e);
      }
      at += e[1];
    }
    assertThat(at).as("extents end at the export's end").isEqualTo(bytes.length);
    return holes;
  }

  /** Per block: is it all zeros in the image file? */
  private static boolean[] zeroBlocks() {
    boolean[] zero = new boolean[BLOCKS];
    byte[] none = new byte[BLOCK];
    int count = 0;
    for (int b = 0; b < BLOCKS; b++) {
      zero[b] = Arrays.equals(bytes, b * BLOCK, (b + 1) * BLOCK, none, 0, BLOCK);
      count += zero[b] ? 1 : 0;
    }
    assertThat(count).as("the fixture has zero blocks").isPositive().isLessThan(BLOCKS);
    return zero;
  }

  private static String field(String json, String key) {
    Matcher m =
        Pattern.compile("\"" + Pattern.quote(key) + "\"\\s*:\\s*(\"[^\"]*\"|[^,}\\]\\s]+)")
            .matcher(json);
    return m.find() ? m.group(1) : null;
  }

  private static List<Long> numbers(String text, String regex) {
    List<Long> found = new ArrayList<>();
    for (Matcher m = Pattern.compile(regex).matcher(text); m.find(); ) {
      found.add(Long.parseLong(m.group(1)));
    }
    return found;
  }

  static String sha256(byte[] b) throws NoSuchAlgorithmException {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }
}
