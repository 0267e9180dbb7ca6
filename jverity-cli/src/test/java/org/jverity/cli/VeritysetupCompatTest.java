package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.jverity.format.ImageIdentity;

/**
 * jverity against the real veritysetup: for every case of a matrix over hash algorithm × format ×
 * data/hash block sizes × salt × data size (each side of every level boundary) × layout, both tools
 * format the same data with the same fixed salt and UUID, and must agree byte for byte on the hash
 * file, on the root hash and on the printed header; then each tool must accept the other's tree.
 */
@Execution(
    ExecutionMode.CONCURRENT) // each case has its own files; most time is spent in veritysetup
class VeritysetupCompatTest {
  static final String UUID = "a60c98d2-ae9b-4865-bfcb-b4e3ace11033";

  /** The largest data file the matrix makes; keeps the whole matrix to seconds. */
  static final long MAX_DATA_BYTES = 5L << 20; // 5 MiB

  enum Content {
    ZERO,
    RANDOM
  }

  enum Layout {
    /** Data and hash tree in two files. */
    SEPARATE,
    /** One image: data, then the hash area at --hash-offset ({@code format img img}). */
    SAME_FILE
  }

  /**
   * One formatting job.
   *
   * @param alg veritysetup hash name
   * @param format hash type, 0 or 1
   * @param dbs data block size, bytes
   * @param hbs hash block size, bytes
   * @param saltBytes salt length; 0 means no salt ({@code --salt -})
   * @param content what the data blocks hold
   * @param fileBytes size of the data file (or, for SAME_FILE, of the image before formatting)
   * @param dataBlocks value for --data-blocks, or -1 to let the tools use the whole file
   * @param hashOffset value for --hash-offset in bytes, or -1 to leave it out
   * @param superblock false for --no-superblock
   * @param layout separate hash file or the same file as the data
   */
  record Case(
      String alg,
      int format,
      int dbs,
      int hbs,
      int saltBytes,
      Content content,
      long fileBytes,
      long dataBlocks,
      long hashOffset,
      boolean superblock,
      Layout layout) {

    /** The salt as hex: a fixed function of its length, so runs are reproducible. */
    String salt() {
      if (saltBytes == 0) {
        return "-";
      }
      byte[] s = new byte[saltBytes];
      new SplittableRandom(0x5a17L + saltBytes).nextBytes(s);
      return HexFormat.of().formatHex(s);
    }

    /** Tree options, as both tools spell them, for format and (without --uuid) for verify. */
    List<String> options(boolean withUuid) {
      List<String> o =
          new ArrayList<>(
              List.of(
                  "--hash",
                  alg,
                  "--format",
                  String.valueOf(format),
                  "--data-block-size",
                  String.valueOf(dbs),
                  "--hash-block-size",
                  String.valueOf(hbs),
                  "--salt",
                  salt()));
      if (dataBlocks >= 0) {
        o.addAll(List.of("--data-blocks", String.valueOf(dataBlocks)));
      }
      if (hashOffset >= 0) {
        o.addAll(List.of("--hash-offset", String.valueOf(hashOffset)));
      }
      if (!superblock) {
        o.add("--no-superblock");
      } else if (withUuid) {
        o.addAll(List.of("--uuid", UUID));
      }
      return o;
    }

    /** The data bytes: zeros, or a seeded random stream that depends on every field. */
    byte[] bytes() {
      byte[] b = new byte[Math.toIntExact(fileBytes)];
      if (content == Content.RANDOM) {
        new SplittableRandom(toString().hashCode()).nextBytes(b);
      }
      return b;
    }

    @Override
    public String toString() {
      return alg
          + " v"
          + format
          + " "
          + dbs
          + "/"
          + hbs
          + " salt="
          + saltBytes
          + "B "
          + content
          + " "
          + fileBytes
          + "B"
          + (dataBlocks >= 0 ? " --data-blocks=" + dataBlocks : "")
          + (hashOffset >= 0 ? " --hash-offset=" + hashOffset : "")
          + (superblock ? "" : " --no-superblock")
          + (layout == Layout.SAME_FILE ? " same-file" : "");
    }
  }

  /** Digests per hash block, veritysetup's P: the largest power of two with P·digest ≤ hbs. */
  static long fanout(String alg, int hbs) {
    int digest =
        switch (alg) {
          case "sha1" -> 20;
          case "sha224" -> 28;
          case "sha256" -> 32;
          case "sha384" -> 48;
          case "sha512" -> 64;
          default -> throw new IllegalArgumentException(alg);
        };
    return Long.highestOneBit(hbs / digest);
  }

  static final int[] SALTS = {0, 1, 32, 255, 256};

  private static Case separate(
      String alg, int format, int dbs, int hbs, int salt, Content c, long blocks) {
    return new Case(alg, format, dbs, hbs, salt, c, blocks * dbs, -1, -1, true, Layout.SEPARATE);
  }

  static Stream<Case> cases() {
    List<Case> cases = new ArrayList<>();
    int[][] blockSizes = {{512, 512}, {4096, 512}, {512, 4096}, {1024, 2048}, {4096, 4096}};

    // Geometry: every algorithm, format and block-size mix, at 1, P, P+1, P², P²+1 (and P³, P³+1
    // where small) data blocks, so each level boundary is crossed on both sides. Random content,
    // so a digest in the wrong slot cannot go unnoticed; the salt length rotates.
    int i = 0;
    for (String alg : List.of("sha1", "sha256", "sha512")) {
      for (int format : new int[] {0, 1}) {
        for (int[] bs : blockSizes) {
          long p = fanout(alg, bs[1]);
          for (long n : new long[] {1, p, p + 1, p * p, p * p + 1, p * p * p, p * p * p + 1}) {
            if (n * bs[0] <= MAX_DATA_BYTES && (n <= p * p + 1 || n * bs[0] <= 1 << 20)) {
              cases.add(
                  separate(
                      alg, format, bs[0], bs[1], SALTS[i++ % SALTS.length], Content.RANDOM, n));
            }
          }
        }
      }
    }
    // Zero-filled data at the same boundaries (every block hashes alike: the tree must still be
    // laid out exactly, including all-zero tails).
    for (String alg : List.of("sha1", "sha256", "sha512")) {
      for (int format : new int[] {0, 1}) {
        long p = fanout(alg, 512);
        for (long n : new long[] {1, p, p + 1, p * p, p * p + 1}) {
          cases.add(separate(alg, format, 512, 512, 32, Content.ZERO, n));
        }
      }
    }
    // Every salt length with both formats, on a two-level 4 KiB tree and a three-level sha1 tree.
    for (int salt : SALTS) {
      for (int format : new int[] {0, 1}) {
        cases.add(separate("sha256", format, 4096, 4096, salt, Content.RANDOM, 129));
        cases.add(separate("sha1", format, 512, 1024, salt, Content.RANDOM, 32 * 32 + 1));
      }
    }
    // The less common algorithms, once per format.
    for (String alg : List.of("sha224", "sha384")) {
      cases.add(separate(alg, 1, 4096, 4096, 32, Content.RANDOM, 129));
      long p = fanout(alg, 512);
      cases.add(separate(alg, 0, 512, 512, 1, Content.RANDOM, p * p + 1));
    }
    // 64 KiB blocks, on either side and on both.
    cases.add(separate("sha256", 1, 65536, 65536, 32, Content.RANDOM, 1));
    cases.add(separate("sha256", 1, 65536, 65536, 32, Content.RANDOM, 2));
    cases.add(separate("sha256", 0, 65536, 65536, 255, Content.RANDOM, 65));
    cases.add(separate("sha256", 1, 65536, 512, 32, Content.RANDOM, 17));
    cases.add(separate("sha512", 0, 65536, 4096, 0, Content.RANDOM, 65));
    cases.add(separate("sha1", 1, 512, 65536, 32, Content.RANDOM, 2049));
    cases.add(separate("sha256", 1, 512, 65536, 1, Content.RANDOM, 2048 + 1));

    // Hash offsets, with and without a superblock, in a separate hash file: 512-aligned offsets
    // that are and are not multiples of the hash block size.
    for (boolean sb : new boolean[] {true, false}) {
      for (long offset : new long[] {0, 512, 1536, 4096, 65536 + 512}) {
        cases.add(
            new Case(
                "sha256",
                1,
                4096,
                4096,
                32,
                Content.RANDOM,
                129 * 4096,
                -1,
                offset,
                sb,
                Layout.SEPARATE));
        cases.add(
            new Case(
                "sha1",
                0,
                1024,
                512,
                1,
                Content.RANDOM,
                300 * 1024,
                -1,
                offset,
                sb,
                Layout.SEPARATE));
      }
    }
    // --data-blocks smaller than the file (the rest of the file is not covered), also with a
    // file whose size is not a multiple of the block size.
    for (boolean sb : new boolean[] {true, false}) {
      for (int format : new int[] {0, 1}) {
        cases.add(
            new Case(
                "sha256",
                format,
                4096,
                4096,
                32,
                Content.RANDOM,
                136 * 4096,
                129,
                -1,
                sb,
                Layout.SEPARATE));
      }
      cases.add(
          new Case(
              "sha256",
              1,
              512,
              4096,
              32,
              Content.RANDOM,
              1000 * 512 + 100,
              999,
              -1,
              sb,
              Layout.SEPARATE));
    }

    // One file for data and tree: format img img --data-blocks N --hash-offset X. The image is
    // either exactly the data (the tree extends it) or longer (the tree lands inside it and the
    // bytes around it must be left alone). Without a superblock the tree starts at
    // floor(X / hash block size), so X is chosen to keep that past the data (veritysetup 2.6.1
    // would silently overwrite the data's tail otherwise; see BadInputTest).
    int[][] sameFileSizes = {{4096, 4096}, {512, 4096}, {4096, 512}, {1024, 2048}};
    for (boolean sb : new boolean[] {true, false}) {
      for (int[] bs : sameFileSizes) {
        long n = fanout("sha256", bs[1]) + 1;
        long dataEnd = n * bs[0];
        long start = sb ? dataEnd : roundUp(dataEnd, bs[1]);
        cases.add(
            new Case(
                "sha256",
                1,
                bs[0],
                bs[1],
                32,
                Content.RANDOM,
                dataEnd,
                n,
                start,
                sb,
                Layout.SAME_FILE));
        cases.add(
            new Case(
                "sha256",
                0,
                bs[0],
                bs[1],
                0,
                Content.RANDOM,
                dataEnd + (256 << 10),
                n,
                start + (sb ? 0 : bs[1]) + 1536,
                sb,
                Layout.SAME_FILE));
        cases.add(
            new Case(
                "sha512",
                1,
                bs[0],
                bs[1],
                256,
                Content.RANDOM,
                dataEnd + (64 << 10),
                n - 1,
                dataEnd + (32 << 10),
                sb,
                Layout.SAME_FILE));
      }
    }
    // A single data block: no tree at all, only the superblock (if any) and the root hash.
    for (int hbs : new int[] {512, 1024, 4096, 8192, 65536}) {
      for (long offset : new long[] {-1, 4096, 8192}) {
        for (boolean sb : new boolean[] {true, false}) {
          cases.add(
              new Case(
                  "sha256",
                  1,
                  4096,
                  hbs,
                  32,
                  Content.RANDOM,
                  4096,
                  -1,
                  offset,
                  sb,
                  Layout.SEPARATE));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("cases")
  void formatMatchesVeritysetupByteForByte(Case c, @TempDir Path dir) throws IOException {
    byte[] data = c.bytes();
    Path vsData;
    Path vsHash;
    Path jvData;
    Path jvHash;
    if (c.layout() == Layout.SAME_FILE) {
      vsData = vsHash = Files.write(dir.resolve("vs.img"), data);
      jvData = jvHash = Files.write(dir.resolve("jv.img"), data);
    } else {
      vsData = jvData = Files.write(dir.resolve("data.img"), data);
      vsHash = dir.resolve("vs.hash");
      jvHash = dir.resolve("jv.hash");
    }

    ToolRun vs = VeritysetupOracle.run(args("format", vsData, vsHash, c.options(true)));
    ToolRun jv = Jverity.run(args("format", jvData, jvHash, c.options(true)));

    assertThat(vs.exitCode()).as("veritysetup format %s\n%s", c, vs).isZero();
    assertThat(jv.exitCode()).as("jverity format %s\n%s", c, jv).isZero();
    assertThat(jv.stderr()).as("jverity stderr, %s", c).isEmpty();
    String root = vs.headerField("Root hash");
    assertThat(root).as("veritysetup root hash\n%s", vs).isNotNull().matches("[0-9a-f]+");
    assertThat(jv.headerField("Root hash")).as("root hash of %s", c).isEqualTo(root);
    assertHeadersEqual(c, vs, jv);

    byte[] vsBytes = Files.readAllBytes(vsHash);
    byte[] jvBytes = Files.readAllBytes(jvHash);
    assertThat(jvBytes.length).as("hash file length, %s", c).isEqualTo(vsBytes.length);
    assertThat(firstDifference(jvBytes, vsBytes))
        .as("first differing byte of the hash file, %s", c)
        .isEqualTo(-1);

    // Each tool accepts the other's tree.
    ToolRun vsVerify =
        VeritysetupOracle.run(args("verify", vsData, jvHash, c.options(false), root));
    assertThat(vsVerify.exitCode())
        .as("veritysetup verify of jverity's tree, %s\n%s", c, vsVerify)
        .isZero();
    ToolRun jvVerify = Jverity.run(args("verify", jvData, vsHash, c.options(false), root));
    assertThat(jvVerify.exitCode())
        .as("jverity verify of veritysetup's tree, %s\n%s", c, jvVerify)
        .isZero();
    assertThat(jvVerify.stdout() + jvVerify.stderr()).as("jverity verify output, %s", c).isEmpty();
  }

  /**
   * veritysetup's header lines must match exactly, but for the hash device named on the first line;
   * jverity adds exactly one line after them, the image identity, naming the same tree.
   */
  private static void assertHeadersEqual(Case c, ToolRun vs, ToolRun jv) {
    List<String> v = vs.stdoutLines();
    List<String> j = jv.stdoutLines();
    assertThat(v).as("veritysetup header").isNotEmpty();
    assertThat(v.getFirst()).startsWith("VERITY header information for ");
    assertThat(j).as("jverity header").hasSize(v.size() + 1);
    assertThat(j.getFirst()).startsWith("VERITY header information for ");
    assertThat(String.join("\n", j.subList(1, v.size())))
        .as("header after the first line, %s", c)
        .isEqualTo(String.join("\n", v.subList(1, v.size())));
    ImageIdentity id = ImageIdentity.parse(jv.headerField("Identity"));
    assertThat(j.getLast()).as("jverity's last line, %s", c).startsWith("Identity:        \t");
    assertThat(id.toString())
        .as("identity of %s", c)
        .isEqualTo(
            String.join(
                ":",
                "verity1",
                vs.headerField("Hash algorithm"),
                vs.headerField("Data block size"),
                vs.headerField("Hash block size"),
                vs.headerField("Data blocks"),
                vs.headerField("Hash type"),
                vs.headerField("Salt"),
                vs.headerField("Root hash")));
  }

  private static List<String> args(
      String command, Path data, Path hash, List<String> options, String... rest) {
    List<String> a = new ArrayList<>();
    a.add(command);
    a.add(data.toString());
    a.add(hash.toString());
    a.addAll(List.of(rest));
    a.addAll(options);
    return a;
  }

  static long roundUp(long n, long multiple) {
    return Math.ceilDiv(n, multiple) * multiple;
  }

  static int firstDifference(byte[] a, byte[] b) {
    return java.util.Arrays.mismatch(a, b);
  }

  // ---- Golden vectors (jverity alone): REFERENCE.md §3, reproduced with veritysetup 2.6.1 ----

  static final String S = "e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d";

  /** cryptsetup tests/verity-compat-test: 8 MiB of zeros, data block size = hash block size. */
  @ParameterizedTest(name = "{0}B v{1} {2} salt {3}")
  @CsvSource({
    "512,  1, sha256, e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d,"
        + " 9de18652fe74edfb9b805aaed72ae2aa48f94333f1ba5c452ac33b1c39325174",
    "1024, 1, sha256, e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d,"
        + " 54d92778750495d1f80832b486ebd007617d746271511bbf0e295e143da2b3df",
    "4096, 1, sha256, e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d,"
        + " e522df0f97da4febb882ac40f30b37dc0b444bf6df418929463fa25280f09d5c",
    "4096, 0, sha256, e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d,"
        + " cbbf4ebd004ef65e29b935bb635a39cf754d677f3fa10b0126da725bbdf10f7d",
    "4096, 1, sha256, -, ef29c902d87350f1da4bfa536e16cebc162a909bf89abe448b81ec500d4fb9bf",
    "1024, 1, sha1, e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d,"
        + " d0e9163ca8844aaa2e88fe5265a8c5d9ee494a99",
    "1024, 1, sha1, dadada, 73509e8e868be6b8ac939817a98a3d35121413b2",
  })
  void verityCompatTestVectors(
      int blockSize, int format, String alg, String salt, String root, @TempDir Path dir)
      throws IOException {
    Path data = zeros(dir.resolve("data.img"), 8L << 20);
    List<String> opts =
        List.of(
            "--hash",
            alg,
            "--format",
            String.valueOf(format),
            "--data-block-size",
            String.valueOf(blockSize),
            "--hash-block-size",
            String.valueOf(blockSize),
            "--salt",
            salt);
    assertGoldenRoot(dir, data, opts, root);
  }

  /** cryptsetup tests/api-test.c VerityTest: 10000 zero sectors, sha256, format 1. */
  @ParameterizedTest(name = "api-test.c: {0} zero bytes")
  @CsvSource({
    "5120000, 20c28ffc129c12360ba6ceea2b6cf04e89c2b41cfe6b8439eb53c1897f50df7b,"
        + " ab018b003a967fc782effb293b6dccb60b4f40c06bf80d16391acf686d28b5d6",
  })
  void apiTestVector(long bytes, String salt, String root, @TempDir Path dir) throws IOException {
    Path data = zeros(dir.resolve("data.img"), bytes);
    assertGoldenRoot(dir, data, List.of("--hash", "sha256", "--format", "1", "--salt", salt), root);
  }

  /**
   * REFERENCE.md derived vectors: zero data, --no-superblock, salt S; the tree bytes themselves are
   * pinned by their length and SHA-256.
   */
  @ParameterizedTest(name = "{0} zero blocks, {1} v{2} {3}/{4}")
  @CsvSource({
    "1,     sha256, 1, 4096, 4096,"
        + " 6c14ed2d41cb5590edee916ae19a97bf68fe6b178a6086276a37700f1cc5d727, 0,     "
        + " e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "128,   sha256, 1, 4096, 4096,"
        + " d9df0b934096e78af62317143aa4255c652198af1874e2221e1b5a036becf2b5, 4096,  "
        + " b2929886616f18a4e517bd37f0209bdb0be99f9f7fe96e9acdcd78bb85ec627a",
    "129,   sha256, 1, 4096, 4096,"
        + " 972f53ee9846957311243f1f427554697e6a0d1ae43ce1f79c88b6ac80045170, 12288, "
        + " 361a3a36a61addf835c4f0620aab3271ed6c8d50103524d9d1d14bb6f2f75474",
    "16385, sha256, 1, 4096, 4096,"
        + " 6d3e2e8907917fd2eacb49882bd3b0c7a413ab5bcfef0114bd63bc1e5f05b64b, 540672,"
        + " 444b676883e3c2d8eadf7055c46da3ae8aef7f494f8bb4c11f0d8cdb108205d9",
    "129,   sha1,   0, 4096, 4096, e59077c63c78edcacca69804224481e897981670, 12288,"
        + " 5f90b1c5046cd28146da2086018385cc15d100410e4899c02893b8724c43b6e0",
    "129,   sha512, 1, 4096, 4096,"
        + " 7595fa0bbca7491de3e6aee8bb9e9b3c8bbe97850d411b9261457663fe9a2a71b6c963528919facd2fe48f0195c91ea27e5026361d88ba964f44b45129e1662d,"
        + " 16384, 41b3ecd8696ee6815d30130e56b1aec6c06ddc75d1134f3fa0534be24b20b620",
    "1032,  sha256, 1, 512,  4096,"
        + " cb0626d85844a201d7a943b9c9cdeca6eebf2151c78d37eb670963d917c625c0, 40960, "
        + " 9bc216cb03e577d065e8445b178eecdf7eb48d22324a93477d4e9dcc2bcebed0",
  })
  void derivedTreeVectors(
      long blocks,
      String alg,
      int format,
      int dbs,
      int hbs,
      String root,
      long treeBytes,
      String treeSha256,
      @TempDir Path dir)
      throws IOException {
    Path data = zeros(dir.resolve("data.img"), blocks * dbs);
    Path hash = dir.resolve("data.hash");
    ToolRun run =
        Jverity.run(
            args(
                "format",
                data,
                hash,
                List.of(
                    "--hash",
                    alg,
                    "--format",
                    String.valueOf(format),
                    "--data-block-size",
                    String.valueOf(dbs),
                    "--hash-block-size",
                    String.valueOf(hbs),
                    "--salt",
                    S,
                    "--no-superblock")));
    assertThat(run.exitCode()).as("%s", run).isZero();
    assertThat(run.headerField("Root hash")).isEqualTo(root);
    byte[] tree = Files.readAllBytes(hash);
    assertThat(tree.length).as("tree bytes").isEqualTo(treeBytes);
    assertThat(sha256(tree)).as("sha256 of the tree").isEqualTo(treeSha256);
  }

  /** Formats with and without a superblock: both give {@code root}, and verify accepts it. */
  private static void assertGoldenRoot(Path dir, Path data, List<String> opts, String root) {
    for (boolean sb : new boolean[] {true, false}) {
      Path hash = dir.resolve(sb ? "sb.hash" : "nosb.hash");
      List<String> o = new ArrayList<>(opts);
      o.addAll(sb ? List.of("--uuid", UUID) : List.of("--no-superblock"));
      ToolRun format = Jverity.run(args("format", data, hash, o));
      assertThat(format.exitCode()).as("%s", format).isZero();
      assertThat(format.headerField("Root hash"))
          .as("root hash, superblock=%s", sb)
          .isEqualTo(root);
      List<String> v = sb ? List.of() : o;
      ToolRun verify = Jverity.run(args("verify", data, hash, v, root));
      assertThat(verify.exitCode()).as("%s", verify).isZero();
    }
  }

  /** A sparse file of {@code size} zero bytes. */
  static Path zeros(Path p, long size) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
      f.setLength(size);
    }
    return p;
  }

  static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
