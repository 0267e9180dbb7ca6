package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.jverity.format.VerityParams;
import org.jverity.tree.MerkleLayout;

/**
 * {@code format --fec-device} against the real {@code veritysetup format --fec-device}: the same
 * data, salt and UUID must give byte-identical FEC parity (and hash file, or whole image) and the
 * same header lines. A sampled matrix covers every roots value (2, 3, 7, 16, 24), every block size
 * (512, 1024, 4096), message areas that fill the last round and that do not, and every layout; then
 * REFERENCE.md §3's FEC vectors A, B and C by their exact sha256, and the refusals.
 */
@Execution(ExecutionMode.CONCURRENT) // each case has its own files
class FecCompatTest {
  static final String UUID = "a60c98d2-ae9b-4865-bfcb-b4e3ace11033";
  static final String SALT = "e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d";
  static final String SALT_F = "9e7457222290f1bac0d42ad2de2d602a87bb871c22ab70ca040bad450578a436";

  enum Layout {
    /** Data, hash file, FEC file: {@code --fec-device fec}. */
    SEPARATE,
    /** A FEC file of its own with the parity at 4096: no "FEC device size" line. */
    SEPARATE_OFFSET,
    /**
     * The parity in the hash file, two blocks past the tree, the hash file made beforehand with
     * foreign bytes there (covered by the code, as veritysetup covers them).
     */
    HASH_FILE,
    /** One image: data, tree at --hash-offset, parity at --fec-offset. */
    ONE_FILE
  }

  /**
   * @param roots --fec-roots
   * @param bs data and hash block size, bytes
   * @param rounds R, the rounds wanted
   * @param fill whether the message area fills the last round exactly (T = R·k)
   */
  record Case(int roots, int bs, int rounds, boolean fill, Layout layout) {
    int k() {
      return 255 - roots;
    }

    /** Blocks between the tree's end and the parity in HASH_FILE and ONE_FILE. */
    long gapBlocks() {
      return layout == Layout.HASH_FILE || layout == Layout.ONE_FILE ? 2 : 0;
    }

    /** The tree of n data blocks, with the hash area at {@code hashOffset}. */
    MerkleLayout geometry(long n, long hashOffset) {
      return MerkleLayout.dmVerity(
          VerityParams.builder().blockSize(bs).dataBlocks(n).hashOffset(hashOffset).build());
    }

    /** Message blocks T of n data blocks in this layout. */
    long messageBlocks(long n) {
      MerkleLayout g = geometry(n, layout == Layout.ONE_FILE ? n * bs : 0);
      return n + g.hashBlocks() + gapBlocks();
    }

    /** The largest data block count giving {@code rounds} rounds, filled or not as asked. */
    long dataBlocks() {
      for (long n = (long) rounds * k(); n > 0; n--) {
        long t = messageBlocks(n);
        if (Math.ceilDiv(t, k()) == rounds && (t % k() == 0) == fill) {
          return n;
        }
      }
      throw new AssertionError("no data size for " + this);
    }

    @Override
    public String toString() {
      return "roots "
          + roots
          + ", "
          + bs
          + " B, "
          + rounds
          + " rounds"
          + (fill ? " (full)" : "")
          + ", "
          + layout;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(2, 4096, 2, true, Layout.SEPARATE),
        new Case(2, 512, 3, false, Layout.HASH_FILE),
        new Case(2, 1024, 2, false, Layout.SEPARATE_OFFSET),
        new Case(3, 512, 5, false, Layout.SEPARATE),
        new Case(3, 1024, 2, true, Layout.ONE_FILE),
        new Case(7, 1024, 3, true, Layout.SEPARATE),
        new Case(7, 4096, 1, false, Layout.HASH_FILE),
        new Case(16, 512, 4, true, Layout.SEPARATE_OFFSET),
        new Case(16, 4096, 2, false, Layout.ONE_FILE),
        new Case(24, 1024, 2, true, Layout.HASH_FILE),
        new Case(24, 4096, 2, false, Layout.SEPARATE),
        new Case(24, 512, 3, true, Layout.ONE_FILE));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("cases")
  void parityMatchesVeritysetupByteForByte(Case c, @TempDir Path dir) throws IOException {
    long n = c.dataBlocks();
    byte[] data = new byte[Math.toIntExact(n * c.bs())];
    new SplittableRandom(c.toString().hashCode()).nextBytes(data);
    List<String> common =
        new ArrayList<>(
            List.of(
                "--data-block-size",
                "" + c.bs(),
                "--hash-block-size",
                "" + c.bs(),
                "--salt",
                SALT,
                "--uuid",
                UUID,
                "--fec-roots",
                "" + c.roots()));
    Path[] vs = files(c, dir.resolve("vs"), data, n, common);
    Path[] jv = files(c, dir.resolve("jv"), data, n, common);

    ToolRun v = VeritysetupOracle.run(command(vs, c, n, common));
    ToolRun j = Jverity.run(command(jv, c, n, common));
    assertThat(v.exitCode()).as("veritysetup %s\n%s", c, v).isZero();
    assertThat(j.exitCode()).as("jverity %s\n%s", c, j).isZero();
    assertThat(j.stderr()).as("jverity stderr").isEmpty();
    assertThat(j.headerField("FEC blocks"))
        .as("FEC blocks, %s", c)
        .isEqualTo(String.valueOf((long) c.rounds() * c.roots()));

    List<String> vl = v.stdoutLines();
    List<String> jl = j.stdoutLines();
    assertThat(jl.subList(1, jl.size() - 1))
        .as("header lines after the first, %s", c)
        .isEqualTo(vl.subList(1, vl.size()));
    assertThat(jl.getLast()).startsWith("Identity:");

    for (int f = 0; f < vs.length; f++) {
      byte[] want = Files.readAllBytes(vs[f]);
      byte[] got = Files.readAllBytes(jv[f]);
      assertThat(got.length).as("length of %s, %s", jv[f].getFileName(), c).isEqualTo(want.length);
      assertThat(Arrays.mismatch(got, want))
          .as("first differing byte of %s, %s", jv[f].getFileName(), c)
          .isEqualTo(-1);
    }
  }

  /**
   * The files one tool writes: {data, hash, fec} (fewer when shared), made ready for the layout.
   */
  private static Path[] files(Case c, Path dir, byte[] data, long n, List<String> common)
      throws IOException {
    Files.createDirectories(dir);
    Path img = Files.write(dir.resolve("data.img"), data);
    return switch (c.layout()) {
      case SEPARATE, SEPARATE_OFFSET ->
          new Path[] {img, dir.resolve("data.hash"), dir.resolve("data.fec")};
      case HASH_FILE -> {
        // The hash file exists already and runs to the parity's offset with foreign bytes.
        byte[] pre = new byte[Math.toIntExact(fecOffset(c, n))];
        new SplittableRandom(7).nextBytes(pre);
        yield new Path[] {img, Files.write(dir.resolve("data.hash"), pre)};
      }
      case ONE_FILE -> {
        byte[] whole = Arrays.copyOf(data, Math.toIntExact(fecOffset(c, n)));
        yield new Path[] {Files.write(img, whole)};
      }
    };
  }

  /** Where the parity goes for layouts that share a file: past the tree and the gap. */
  private static long fecOffset(Case c, long n) {
    return switch (c.layout()) {
      case SEPARATE -> 0;
      case SEPARATE_OFFSET -> 4096;
      case HASH_FILE -> c.geometry(n, 0).hashDeviceSize() + c.gapBlocks() * c.bs();
      case ONE_FILE -> c.geometry(n, n * c.bs()).hashDeviceSize() + c.gapBlocks() * c.bs();
    };
  }

  private static List<String> command(Path[] files, Case c, long n, List<String> common) {
    List<String> a = new ArrayList<>(List.of("format"));
    Path img = files[0];
    switch (c.layout()) {
      case SEPARATE ->
          a.addAll(
              List.of(img.toString(), files[1].toString(), "--fec-device", files[2].toString()));
      case SEPARATE_OFFSET ->
          a.addAll(
              List.of(
                  img.toString(),
                  files[1].toString(),
                  "--fec-device",
                  files[2].toString(),
                  "--fec-offset",
                  "4096"));
      case HASH_FILE ->
          a.addAll(
              List.of(
                  img.toString(),
                  files[1].toString(),
                  "--fec-device",
                  files[1].toString(),
                  "--fec-offset",
                  "" + fecOffset(c, n)));
      case ONE_FILE ->
          a.addAll(
              List.of(
                  img.toString(),
                  img.toString(),
                  "--fec-device",
                  img.toString(),
                  "--data-blocks",
                  "" + n,
                  "--hash-offset",
                  "" + n * c.bs(),
                  "--fec-offset",
                  "" + fecOffset(c, n)));
    }
    a.addAll(common);
    return a;
  }

  // --- REFERENCE.md §3: FEC known-answer vectors (made with veritysetup 2.6.1) ---

  static byte[] vectorA() {
    byte[] b = new byte[409600];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (7 * i + 3);
    }
    return b;
  }

  static byte[] vectorB() {
    byte[] b = new byte[512000];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) ((131 * i) ^ (i >> 9));
    }
    return b;
  }

  static String sha256(Path p) throws Exception {
    return HexFormat.of()
        .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
  }

  @ParameterizedTest(name = "vector A, roots {0}")
  @CsvSource({
    "2, 8192, 5b1592b9b0ac30b481ee7e17791a042dbae8d896a519fb2f1907d3226c1c9db6",
    "24, 98304, 9f38acfd055c2ed6e5cc91053a2df3e6f71c6ffa36b168186b06a21120d7d1d8"
  })
  void vectorA(int roots, long fecBytes, String fecSha, @TempDir Path dir) throws Exception {
    Path data = Files.write(dir.resolve("a.img"), vectorA());
    ToolRun j =
        Jverity.run(
            "format",
            data.toString(),
            dir.resolve("a.hash").toString(),
            "--fec-device",
            dir.resolve("a.fec").toString(),
            "--fec-roots",
            "" + roots,
            "--salt",
            SALT_F,
            "--uuid",
            UUID);
    assertThat(j.exitCode()).as("%s", j).isZero();
    assertThat(j.headerField("Root hash"))
        .isEqualTo("e90ee24fde4981fa2e1f1b88e0c201ff3cac8372e271f1adb55512fd40581e49");
    assertThat(sha256(dir.resolve("a.hash")))
        .isEqualTo("e67483b16e8f00b1ec5dc5de19f8d4894aa007b162c0649fce5e7edd396b50b7");
    assertThat(Files.size(dir.resolve("a.fec"))).isEqualTo(fecBytes);
    assertThat(sha256(dir.resolve("a.fec"))).isEqualTo(fecSha);
    assertThat(j.headerField("FEC device size")).isEqualTo(fecBytes + " [bytes]");
  }

  @Test
  void vectorB(@TempDir Path dir) throws Exception {
    Path data = Files.write(dir.resolve("b.img"), vectorB());
    ToolRun j =
        Jverity.run(
            "format",
            data.toString(),
            dir.resolve("b.hash").toString(),
            "--fec-device",
            dir.resolve("b.fec").toString(),
            "--fec-roots",
            "3",
            "--data-block-size",
            "512",
            "--hash-block-size",
            "512",
            "--salt",
            SALT,
            "--uuid",
            UUID);
    assertThat(j.exitCode()).as("%s", j).isZero();
    assertThat(j.headerField("Root hash"))
        .isEqualTo("2c516738b79dcf384453af9839f6a6261159fa844090326c377a3aa03664d510");
    assertThat(Files.size(dir.resolve("b.hash"))).isEqualTo(35328);
    assertThat(sha256(dir.resolve("b.hash")))
        .isEqualTo("3b2c1a14c8304599e3e59408eb69428f0e39e079ebd65cfd6b4194fc1dd9f4b7");
    assertThat(Files.size(dir.resolve("b.fec"))).isEqualTo(7680);
    assertThat(sha256(dir.resolve("b.fec")))
        .isEqualTo("f2b8a425d1fefc2822ae9ad2e1055b25a99491fac90063c387fcd5c5598c6339");
    assertThat(j.headerField("FEC blocks")).isEqualTo("15"); // R = 5 rounds of 3 parity blocks
  }

  @Test
  void vectorC(@TempDir Path dir) throws Exception {
    Path img = Files.write(dir.resolve("c.img"), Arrays.copyOf(vectorB(), 614400));
    ToolRun j =
        Jverity.run(
            "format",
            img.toString(),
            img.toString(),
            "--fec-device",
            img.toString(),
            "--data-blocks=1000",
            "--hash-offset=512000",
            "--fec-offset=563200",
            "--fec-roots=2",
            "--data-block-size",
            "512",
            "--hash-block-size",
            "512",
            "--salt",
            SALT,
            "--uuid",
            UUID);
    assertThat(j.exitCode()).as("%s", j).isZero();
    assertThat(j.headerField("Root hash"))
        .isEqualTo("2c516738b79dcf384453af9839f6a6261159fa844090326c377a3aa03664d510");
    assertThat(sha256(img))
        .isEqualTo("111c4a56b11efbb8d9dd451e4a6a7511ada10726fa37d08f0105dea9cdd38a0c");
  }

  @Test
  void jsonDescribesTheParity(@TempDir Path dir) throws Exception {
    Path data = Files.write(dir.resolve("b.img"), vectorB());
    ToolRun j =
        Jverity.run(
            "format",
            data.toString(),
            dir.resolve("b.hash").toString(),
            "--fec-device",
            dir.resolve("b.fec").toString(),
            "--fec-roots",
            "3",
            "--data-block-size",
            "512",
            "--hash-block-size",
            "512",
            "--salt",
            SALT,
            "--uuid",
            UUID,
            "--json");
    assertThat(j.exitCode()).as("%s", j).isZero();
    assertThat(j.stdout())
        .contains(
            "\"fec\": {",
            "\"roots\": 3",
            "\"offset\": 0",
            "\"size\": 7680",
            "\"blocks\": 15",
            "\"rounds\": 5",
            "\"messageBlocks\": 1068",
            "\"onHashDevice\": false");
  }

  // --- refusals: one line, a distinct exit code, no FEC file left behind ---

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "roots 1             | 3 | --fec-roots=1",
        "roots 25            | 3 | --fec-roots=25",
        "offset not sectors  | 3 | --fec-offset=1000",
        "negative offset     | 3 | --fec-offset=-512",
        "block sizes differ  | 3 | --hash-block-size=512",
      })
  void refusesBadFecParameters(String what, int code, String option, @TempDir Path dir)
      throws Exception {
    Path data = Files.write(dir.resolve("a.img"), vectorA());
    Path fec = dir.resolve("a.fec");
    ToolRun j =
        Jverity.run(
            "format",
            data.toString(),
            dir.resolve("a.hash").toString(),
            "--fec-device",
            fec.toString(),
            option,
            "--salt",
            SALT_F);
    assertRefused(j, code, what);
    assertThat(fec).doesNotExist();
    assertThat(dir.resolve("a.hash")).doesNotExist();
  }

  @Test
  void refusesFecOptionsWithoutAFecDevice(@TempDir Path dir) throws Exception {
    Path data = Files.write(dir.resolve("a.img"), vectorA());
    assertRefused(
        Jverity.run("format", data.toString(), dir.resolve("a.hash").toString(), "--fec-roots=3"),
        2,
        "roots alone");
    assertRefused(
        Jverity.run(
            "format", data.toString(), dir.resolve("a.hash").toString(), "--fec-offset=4096"),
        2,
        "offset alone");
  }

  @ParameterizedTest(name = "FEC at {0} in the hash file")
  @CsvSource({"0", "4096"}) // the superblock; the tree (one block at 4096, ends at 8192)
  void refusesParityOverTheHashArea(long offset, @TempDir Path dir) throws Exception {
    Path data = Files.write(dir.resolve("a.img"), vectorA());
    Path hash = dir.resolve("a.hash");
    assertRefused(
        Jverity.run(
            "format",
            data.toString(),
            hash.toString(),
            "--fec-device",
            hash.toString(),
            "--fec-offset=" + offset,
            "--salt",
            SALT_F),
        3,
        "over the hash area");
    assertThat(hash).doesNotExist();
  }

  @Test
  void refusesParityOverTheData(@TempDir Path dir) throws Exception {
    Path data = Files.write(dir.resolve("a.img"), vectorA());
    assertRefused(
        Jverity.run(
            "format",
            data.toString(),
            dir.resolve("a.hash").toString(),
            "--fec-device",
            data.toString(),
            "--fec-offset=405504",
            "--salt",
            SALT_F),
        3,
        "over the data");
    assertThat(Files.size(data)).isEqualTo(409600);
  }

  @Test
  void parityMayFollowTheDataInTheDataFile(@TempDir Path dir) throws Exception {
    Path data = Files.write(dir.resolve("a.img"), vectorA());
    ToolRun j =
        Jverity.run(
            "format",
            data.toString(),
            dir.resolve("a.hash").toString(),
            "--fec-device",
            data.toString(),
            "--fec-offset=409600",
            "--salt",
            SALT_F,
            "--uuid",
            UUID);
    assertThat(j.exitCode()).as("%s", j).isZero();
    byte[] all = Files.readAllBytes(data);
    assertThat(Arrays.copyOf(all, 409600)).isEqualTo(vectorA());
    assertThat(
            HexFormat.of()
                .formatHex(
                    MessageDigest.getInstance("SHA-256")
                        .digest(Arrays.copyOfRange(all, 409600, all.length))))
        .isEqualTo("5b1592b9b0ac30b481ee7e17791a042dbae8d896a519fb2f1907d3226c1c9db6");
  }

  private static void assertRefused(ToolRun j, int code, String what) {
    assertThat(j.exitCode()).as("%s\n%s", what, j).isEqualTo(code);
    assertThat(j.stderrLines()).as("%s: one line on stderr\n%s", what, j).hasSize(1);
    assertThat(j.stderr()).doesNotContain("Exception", "\tat ");
    assertThat(j.stdout()).isEmpty();
  }
}
