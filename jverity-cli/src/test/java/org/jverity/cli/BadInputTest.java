package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.jverity.cli.command.ExitCode;

/**
 * Inputs jverity must refuse: every case prints exactly one line on stderr, starting "jverity: ",
 * with no stack trace, prints nothing on stdout, and exits with the code of its kind of failure.
 * The superblock decoder is also fuzzed (jqwik) with random blocks and mutations of a valid one.
 */
public class BadInputTest {
  static final String UUID = "a60c98d2-ae9b-4865-bfcb-b4e3ace11033";
  static final String SALT = "e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d";

  /**
   * Files every case may use, made fresh in a temporary directory.
   *
   * @param dir the directory, for files a case makes itself
   * @param data 16 random 4 KiB blocks
   * @param odd 16 blocks and 100 bytes
   * @param hash data's tree, with a superblock at 0
   * @param root data's root hash
   */
  record Fixture(Path dir, Path data, Path odd, Path hash, String root) {
    static Fixture create(Path dir) throws IOException {
      byte[] bytes = new byte[16 * 4096 + 100];
      new SplittableRandom(7).nextBytes(bytes);
      Path data = Files.write(dir.resolve("data.img"), java.util.Arrays.copyOf(bytes, 16 * 4096));
      Path odd = Files.write(dir.resolve("odd.img"), bytes);
      Path hash = dir.resolve("data.hash");
      ToolRun f =
          Jverity.run("format", data.toString(), hash.toString(), "--salt", SALT, "--uuid", UUID);
      assertThat(f.exitCode()).as("%s", f).isZero();
      return new Fixture(dir, data, odd, hash, f.headerField("Root hash"));
    }

    String p(String name) {
      return dir.resolve(name).toString();
    }

    /** The identity of data.img's tree, but claiming {@code dataBlocks} data blocks. */
    String identity(long dataBlocks) {
      return "verity1:sha256:4096:4096:" + dataBlocks + ":1:" + SALT + ":" + root;
    }

    /** {@code read DATA HASH ROOT -o out.bin} followed by {@code extra}. */
    List<String> read(String... extra) {
      List<String> a =
          new java.util.ArrayList<>(
              List.of("read", data.toString(), hash.toString(), root, "-o", p("out.bin")));
      a.addAll(List.of(extra));
      return a;
    }

    /** A copy of data.img, to be data and hash area at once. */
    String image() throws IOException {
      return Files.copy(data, dir.resolve("image.img")).toString();
    }

    /** The hash file cut to {@code bytes}. */
    String truncatedHash(long bytes) throws IOException {
      byte[] h = Files.readAllBytes(hash);
      return Files.write(
              dir.resolve("truncated.hash"), java.util.Arrays.copyOf(h, Math.toIntExact(bytes)))
          .toString();
    }
  }

  interface Args {
    List<String> of(Fixture f) throws IOException;
  }

  /**
   * One refused command line.
   *
   * @param name what is wrong
   * @param code the exit code expected
   * @param says a fragment the stderr line must contain
   * @param args the command line, built on a fresh fixture
   */
  record Bad(String name, int code, String says, Args args) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Bad bad(String name, int code, String says, Function<Fixture, List<String>> args) {
    return new Bad(name, code, says, args::apply);
  }

  static Stream<Bad> cases() {
    String salt257 = "ab".repeat(257);
    return Stream.of(
        // Missing or unusable files: IO_ERROR.
        bad(
            "format: missing data file",
            ExitCode.IO_ERROR,
            "data file does not exist",
            f -> List.of("format", f.p("nope.img"), f.p("nope.hash"))),
        bad(
            "verify: missing data file",
            ExitCode.IO_ERROR,
            "data file does not exist",
            f -> List.of("verify", f.p("nope.img"), f.hash().toString(), f.root())),
        bad(
            "verify: missing hash file",
            ExitCode.IO_ERROR,
            "hash file does not exist",
            f -> List.of("verify", f.data().toString(), f.p("nope.hash"), f.root())),
        bad(
            "dump: missing hash file",
            ExitCode.IO_ERROR,
            "hash file does not exist",
            f -> List.of("dump", f.p("nope.hash"))),
        bad(
            "format: data file is a directory",
            ExitCode.IO_ERROR,
            "is a directory",
            f -> List.of("format", f.dir().toString(), f.p("x.hash"))),
        bad(
            "format: hash file in a missing directory",
            ExitCode.IO_ERROR,
            "no such file",
            f -> List.of("format", f.data().toString(), f.p("no/such/dir.hash"))),

        // Data shorter than --data-blocks, hash file shorter than its tree: DEVICE_TOO_SMALL.
        bad(
            "format: data smaller than --data-blocks",
            ExitCode.DEVICE_TOO_SMALL,
            "needs 69632",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--data-blocks", "17")),
        bad(
            "verify --no-superblock: data smaller than --data-blocks",
            ExitCode.DEVICE_TOO_SMALL,
            "needs",
            f ->
                List.of(
                    "verify",
                    f.data().toString(),
                    f.hash().toString(),
                    f.root(),
                    "--no-superblock",
                    "--hash-offset",
                    "4096",
                    "--salt",
                    SALT,
                    "--data-blocks",
                    "100")),
        new Bad(
            "verify: truncated hash file",
            ExitCode.DEVICE_TOO_SMALL,
            "truncated",
            f -> List.of("verify", f.data().toString(), f.truncatedHash(4096 + 100), f.root())),
        new Bad(
            "verify --no-superblock: truncated hash file",
            ExitCode.DEVICE_TOO_SMALL,
            "truncated",
            f ->
                List.of(
                    "verify",
                    f.data().toString(),
                    f.truncatedHash(4096 + 4095),
                    f.root(),
                    "--no-superblock",
                    "--hash-offset",
                    "4096",
                    "--salt",
                    SALT)),

        // Parameters dm-verity cannot take: INVALID_PARAMETER.
        bad(
            "format: size not a multiple of the block size",
            ExitCode.INVALID_PARAMETER,
            "not a multiple",
            f -> List.of("format", f.odd().toString(), f.p("x.hash"))),
        bad(
            "verify --no-superblock: size not a multiple of the block size",
            ExitCode.INVALID_PARAMETER,
            "not a multiple",
            f ->
                List.of(
                    "verify",
                    f.odd().toString(),
                    f.hash().toString(),
                    f.root(),
                    "--no-superblock",
                    "--salt",
                    SALT)),
        bad(
            "format: empty data file",
            ExitCode.INVALID_PARAMETER,
            "empty data file",
            f -> List.of("format", write(f, "empty.img", 0), f.p("x.hash"))),
        bad(
            "format: data block size 333",
            ExitCode.INVALID_PARAMETER,
            "data block size: 333",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--data-block-size", "333")),
        bad(
            "format: hash block size 333",
            ExitCode.INVALID_PARAMETER,
            "hash block size: 333",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--hash-block-size", "333")),
        bad(
            "format: data block size 1000",
            ExitCode.INVALID_PARAMETER,
            "data block size: 1000",
            f ->
                List.of("format", f.data().toString(), f.p("x.hash"), "--data-block-size", "1000")),
        bad(
            "format: hash block size 1000",
            ExitCode.INVALID_PARAMETER,
            "hash block size: 1000",
            f ->
                List.of("format", f.data().toString(), f.p("x.hash"), "--hash-block-size", "1000")),
        bad(
            "format: block size 256 (below a sector)",
            ExitCode.INVALID_PARAMETER,
            "data block size: 256",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--data-block-size", "256")),
        bad(
            "format: block size 1 MiB (above 512 KiB)",
            ExitCode.INVALID_PARAMETER,
            "hash block size: 1048576",
            f ->
                List.of(
                    "format", f.data().toString(), f.p("x.hash"), "--hash-block-size", "1048576")),
        bad(
            "verify --no-superblock: block size 1000",
            ExitCode.INVALID_PARAMETER,
            "data block size: 1000",
            f ->
                List.of(
                    "verify",
                    f.data().toString(),
                    f.hash().toString(),
                    f.root(),
                    "--no-superblock",
                    "--data-block-size",
                    "1000")),
        bad(
            "format: hash offset 100",
            ExitCode.INVALID_PARAMETER,
            "hash offset: 100",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--hash-offset", "100")),
        bad(
            "format: hash offset 4097",
            ExitCode.INVALID_PARAMETER,
            "hash offset: 4097",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--hash-offset", "4097")),
        bad(
            "format: negative hash offset",
            ExitCode.INVALID_PARAMETER,
            "hash offset: -512",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--hash-offset", "-512")),
        bad(
            "verify: hash offset 100",
            ExitCode.INVALID_PARAMETER,
            "hash offset: 100",
            f ->
                List.of(
                    "verify",
                    f.data().toString(),
                    f.hash().toString(),
                    f.root(),
                    "--hash-offset",
                    "100")),
        bad(
            "dump: hash offset 100",
            ExitCode.INVALID_PARAMETER,
            "hash offset: 100",
            f -> List.of("dump", f.hash().toString(), "--hash-offset", "100")),
        new Bad(
            "format img img: superblock inside the data",
            ExitCode.INVALID_PARAMETER,
            "overlaps the data",
            f -> {
              String img = f.image();
              return List.of("format", img, img, "--data-blocks", "16", "--hash-offset", "61440");
            }),
        new Bad(
            "format img img: hash offset 0 without --data-blocks",
            ExitCode.INVALID_PARAMETER,
            "overlaps the data",
            f -> {
              String img = f.image();
              return List.of("format", img, img);
            }),
        // veritysetup 2.6.1 accepts this one and overwrites the last 512 bytes of data: without a
        // superblock the tree starts at floor(offset / hash block size) = 65536 < 66048.
        new Bad(
            "format img img --no-superblock: tree rounded down into the data",
            ExitCode.INVALID_PARAMETER,
            "overlaps the data",
            f -> {
              String img =
                  Files.write(f.dir().resolve("img.img"), Files.readAllBytes(f.data())).toString();
              return List.of(
                  "format",
                  img,
                  img,
                  "--no-superblock",
                  "--data-block-size",
                  "512",
                  "--hash-block-size",
                  "4096",
                  "--data-blocks",
                  "129",
                  "--hash-offset",
                  "66048");
            }),
        new Bad(
            "verify img img: hash area inside the data",
            ExitCode.INVALID_PARAMETER,
            "overlaps the data",
            f -> {
              String img = f.image();
              return List.of(
                  "verify",
                  img,
                  img,
                  f.root(),
                  "--no-superblock",
                  "--salt",
                  SALT,
                  "--data-blocks",
                  "16",
                  "--hash-offset",
                  "32768");
            }),
        bad(
            "format: salt of 257 bytes",
            ExitCode.INVALID_PARAMETER,
            "salt: 257 bytes",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--salt", salt257)),
        bad(
            "verify --no-superblock: salt of 257 bytes",
            ExitCode.INVALID_PARAMETER,
            "salt: 257 bytes",
            f ->
                List.of(
                    "verify",
                    f.data().toString(),
                    f.hash().toString(),
                    f.root(),
                    "--no-superblock",
                    "--salt",
                    salt257)),
        bad(
            "format: non-hex salt",
            ExitCode.INVALID_PARAMETER,
            "salt: not a hex string",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--salt", "xyz1")),
        bad(
            "format: odd-length salt",
            ExitCode.INVALID_PARAMETER,
            "salt: odd number of hex digits",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--salt", "abc")),
        bad(
            "format: unknown hash",
            ExitCode.UNSUPPORTED_HASH,
            "hash algorithm: blah (not supported; expected: sha1",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--hash", "blah")),
        bad(
            "format: hash type 3",
            ExitCode.INVALID_PARAMETER,
            "hash format: 3",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--format", "3")),
        bad(
            "format: malformed uuid",
            ExitCode.INVALID_PARAMETER,
            "uuid: nope",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--uuid", "nope")),
        bad(
            "verify: non-hex root hash",
            ExitCode.INVALID_PARAMETER,
            "root hash: not a hex string",
            f ->
                List.of(
                    "verify",
                    f.data().toString(),
                    f.hash().toString(),
                    "zz" + f.root().substring(2))),
        bad(
            "verify: root hash of the wrong length",
            ExitCode.INVALID_PARAMETER,
            "root hash: 31 bytes",
            f ->
                List.of("verify", f.data().toString(), f.hash().toString(), f.root().substring(2))),

        // Option values jverity cannot use: INVALID_PARAMETER, naming the option.
        bad(
            "read: --cache-size 0",
            ExitCode.INVALID_PARAMETER,
            "--cache-size: 0 (expected: at least 1 byte)",
            f -> f.read("--cache-size", "0")),
        bad(
            "read: --length with an unknown suffix",
            ExitCode.INVALID_PARAMETER,
            "--length: 1X (expected: bytes, or a number with K, M, G, T, KiB, MiB, GiB or TiB)",
            f -> f.read("--length", "1X")),
        bad(
            "read: negative --offset",
            ExitCode.INVALID_PARAMETER,
            "--offset: -1 (expected: bytes",
            f -> f.read("--offset", "-1")),
        bad(
            "read: negative --cache-size",
            ExitCode.INVALID_PARAMETER,
            "--cache-size: -4096 (expected: bytes",
            f -> f.read("--cache-size", "-4096")),
        bad(
            "read: empty --length",
            ExitCode.INVALID_PARAMETER,
            "--length: \"\" (expected: bytes",
            f -> f.read("--length", "")),
        bad(
            "read: --length past 2^63 bytes",
            ExitCode.INVALID_PARAMETER,
            "--length: 8388608T (expected: at most 9223372036854775807 bytes)",
            f -> f.read("--length", "8388608T")),
        bad(
            "read: --offset of 20 digits",
            ExitCode.INVALID_PARAMETER,
            "--offset: 99999999999999999999 (expected: at most",
            f -> f.read("--offset", "99999999999999999999")),
        bad(
            "read: --offset + --length overflows",
            ExitCode.INVALID_PARAMETER,
            "--offset: 9223372036854775807 (expected: at most the data's size, 65536 bytes)",
            f -> f.read("--offset", "9223372036854775807", "--length", "10")),
        bad(
            "read: --length past the end",
            ExitCode.INVALID_PARAMETER,
            "--length: 1048576 (expected: at most 61440, the bytes from --offset 4096 to the end of the data)",
            f -> f.read("--offset", "4K", "--length", "1M")),
        bad(
            "read: empty --output",
            ExitCode.INVALID_PARAMETER,
            "--output: \"\" (expected: a file name)",
            f -> f.read("--output", "")),
        bad(
            "format: empty HASH",
            ExitCode.INVALID_PARAMETER,
            "HASH: \"\" (expected: a file name)",
            f -> List.of("format", f.data().toString(), "")),
        bad(
            "verify: empty --root-hash-file",
            ExitCode.INVALID_PARAMETER,
            "--root-hash-file: \"\" (expected: a file name)",
            f ->
                List.of(
                    "verify", f.data().toString(), f.hash().toString(), "--root-hash-file", "")),
        bad(
            "format: empty --seed",
            ExitCode.INVALID_PARAMETER,
            "--seed: \"\" (expected: a secret",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--seed", "")),
        bad(
            "format: empty --hash",
            ExitCode.INVALID_PARAMETER,
            "hash algorithm: \"\" (expected: sha1",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--hash", "")),
        bad(
            "format: --data-blocks past 2^63 bytes",
            ExitCode.INVALID_PARAMETER,
            "data blocks: 9223372036854775807 (expected: 1 to 2251799813685247)",
            f ->
                List.of(
                    "format",
                    f.data().toString(),
                    f.p("x.hash"),
                    "--data-blocks",
                    "9223372036854775807")),
        bad(
            "format: --hash-offset near 2^63",
            ExitCode.INVALID_PARAMETER,
            "hash offset 9223372036854775296",
            f ->
                List.of(
                    "format",
                    f.data().toString(),
                    f.p("x.hash"),
                    "--hash-offset",
                    "9223372036854775296")),

        // Image identities that do not parse: INVALID_PARAMETER; that the superblock contradicts:
        // SUPERBLOCK_MISMATCH.
        bad(
            "verify: identity with a field missing",
            ExitCode.INVALID_PARAMETER,
            "identity: 7 fields",
            f ->
                List.of(
                    "verify",
                    f.data().toString(),
                    f.hash().toString(),
                    f.identity(16).replace(":1:", ":"))),
        bad(
            "read: identity of another version",
            ExitCode.INVALID_PARAMETER,
            "identity: version verity2 (expected: verity1:ALG:",
            f ->
                f.read().stream()
                    .map(a -> a.equals(f.root()) ? "verity2" + f.identity(16).substring(7) : a)
                    .toList()),
        bad(
            "verify: superblock contradicts the identity",
            ExitCode.SUPERBLOCK_MISMATCH,
            "data.hash: superblock contradicts the identity: data blocks 16 (identity says 15)",
            f -> List.of("verify", f.data().toString(), f.hash().toString(), f.identity(15))),
        bad(
            "verify --no-superblock: an option contradicts the identity",
            ExitCode.INVALID_PARAMETER,
            "the options contradict the identity: it has data blocks 16 (option: 15)",
            f ->
                List.of(
                    "verify",
                    f.data().toString(),
                    f.hash().toString(),
                    f.identity(16),
                    "--no-superblock",
                    "--hash-offset",
                    "4096",
                    "--data-blocks",
                    "15")),

        // No superblock where one is expected: BAD_SUPERBLOCK.
        bad(
            "verify: empty hash file",
            ExitCode.BAD_SUPERBLOCK,
            "no superblock at byte 0",
            f -> List.of("verify", f.data().toString(), write(f, "empty.hash", 0), f.root())),
        bad(
            "verify: superblock offset past the end",
            ExitCode.BAD_SUPERBLOCK,
            "no superblock at byte 1048576",
            f ->
                List.of(
                    "verify",
                    f.data().toString(),
                    f.hash().toString(),
                    f.root(),
                    "--hash-offset",
                    "1048576")),
        bad(
            "dump: superblock offset near 2^63 (offset + 512 overflows)",
            ExitCode.BAD_SUPERBLOCK,
            "no superblock at byte 9223372036854775296",
            f -> List.of("dump", f.hash().toString(), "--hash-offset", "9223372036854775296")),
        bad(
            "dump: data image instead of a hash file",
            ExitCode.BAD_SUPERBLOCK,
            "no verity superblock",
            f -> List.of("dump", f.data().toString())),

        // Command lines not understood: USAGE.
        bad(
            "format: unknown option",
            ExitCode.USAGE,
            "unknown option '--bogus'",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--bogus")),
        bad(
            "verify: unknown option",
            ExitCode.USAGE,
            "unknown option '--bogus'",
            f -> List.of("verify", f.data().toString(), f.hash().toString(), f.root(), "--bogus")),
        bad(
            "unknown command",
            ExitCode.USAGE,
            "unknown command 'frobnicate'",
            f -> List.of("frobnicate", "x", "y")),
        bad(
            "format: missing hash file argument",
            ExitCode.USAGE,
            "missing required parameter 'HASH'",
            f -> List.of("format", f.data().toString())),
        bad(
            "verify: no root hash",
            ExitCode.USAGE,
            "needs ROOT_HASH",
            f -> List.of("verify", f.data().toString(), f.hash().toString())),
        bad(
            "format: block size not a number",
            ExitCode.USAGE,
            "--data-block-size",
            f -> List.of("format", f.data().toString(), f.p("x.hash"), "--data-block-size", "4k")),
        bad(
            "verify: --threads 0",
            ExitCode.USAGE,
            "--threads: 0",
            f ->
                List.of(
                    "verify",
                    f.data().toString(),
                    f.hash().toString(),
                    f.root(),
                    "--threads",
                    "0")));
  }

  private static String write(Fixture f, String name, int bytes) {
    try {
      return Files.write(f.dir().resolve(name), new byte[bytes]).toString();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void isRefusedWithOneLineAndItsExitCode(Bad c, @TempDir Path dir) throws IOException {
    Fixture f = Fixture.create(dir);
    ToolRun r = Jverity.run(c.args().of(f));
    assertThat(r.exitCode()).as("%s\n%s", c, r).isEqualTo(c.code());
    assertOneErrorLine(r);
    assertThat(r.stderr()).as("%s", c).contains(c.says());
  }

  /** The exit codes are distinct per kind of failure, and none of them is 0 or INTERNAL. */
  @org.junit.jupiter.api.Test
  void everyKindHasItsOwnNonZeroCode() {
    Set<Integer> codes =
        Set.of(
            ExitCode.USAGE,
            ExitCode.INVALID_PARAMETER,
            ExitCode.IO_ERROR,
            ExitCode.BAD_SUPERBLOCK,
            ExitCode.SUPERBLOCK_MISMATCH,
            ExitCode.ROOT_HASH_MISMATCH,
            ExitCode.CORRUPTION,
            ExitCode.DEVICE_TOO_SMALL,
            ExitCode.WRONG_PARAMETERS,
            ExitCode.INTERNAL);
    assertThat(codes).hasSize(10).doesNotContain(ExitCode.OK);
    assertThat(cases().map(Bad::code)).doesNotContain(ExitCode.OK, ExitCode.INTERNAL);
  }

  public static void assertOneErrorLine(ToolRun r) {
    assertThat(r.stdout()).as("stdout\n%s", r).isEmpty();
    assertThat(r.stderrLines()).as("stderr lines\n%s", r).hasSize(1);
    assertThat(r.stderr()).as("stderr\n%s", r).startsWith("jverity: ").endsWith("\n");
    assertNoStackTrace(r);
  }

  static void assertNoStackTrace(ToolRun r) {
    assertThat(r.stderr() + r.stdout())
        .as("no stack trace\n%s", r)
        .doesNotContain("Exception")
        .doesNotContain("at org.")
        .doesNotContain("\tat ")
        .doesNotContain("Error:");
  }

  // ---- fuzzed superblocks (jqwik) ----

  /** Longest one verify or dump of the small fuzz image may take. */
  static final Duration QUICKLY = Duration.ofSeconds(5);

  private static Path fuzzDir;
  private static Path fuzzData;
  private static byte[] fuzzHash; // a valid superblock at 0, then the tree
  private static String fuzzRoot;

  @BeforeContainer
  static void makeFuzzImage() throws IOException {
    fuzzDir = Files.createTempDirectory("jverity-fuzz");
    byte[] data = new byte[257 * 512]; // three levels with 512-byte hash blocks
    new SplittableRandom(11).nextBytes(data);
    fuzzData = Files.write(fuzzDir.resolve("data.img"), data);
    Path hash = fuzzDir.resolve("valid.hash");
    ToolRun f =
        Jverity.run(
            "format",
            fuzzData.toString(),
            hash.toString(),
            "--data-block-size",
            "512",
            "--hash-block-size",
            "512",
            "--salt",
            SALT,
            "--uuid",
            UUID);
    assertThat(f.exitCode()).as("%s", f).isZero();
    fuzzHash = Files.readAllBytes(hash);
    fuzzRoot = f.headerField("Root hash");
  }

  @AfterContainer
  static void removeFuzzImage() throws IOException {
    if (fuzzDir != null) {
      try (Stream<Path> s = Files.walk(fuzzDir)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  /** Random bytes where the superblock should be: never a superblock, always exit 5. */
  @Property(tries = 200)
  void randomBlockIsNoSuperblock(@ForAll @Size(512) byte[] block) throws IOException {
    Path hash = withSuperblock(block);
    for (ToolRun r : List.of(verify(hash), Jverity.run("dump", hash.toString()))) {
      assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.BAD_SUPERBLOCK);
      assertOneErrorLine(r);
      assertThat(r.stderr()).contains("no verity superblock");
    }
  }

  /**
   * A superblock with the right signature and version but random fields, and mutations (a few bytes
   * overwritten) of the valid one: dump either prints it or refuses it in one line; verify refuses
   * in one line or reports a verification result, never an internal error or usage error.
   */
  @Property(tries = 400)
  void fuzzedSuperblockIsHandled(@ForAll("superblocks") byte[] block) throws IOException {
    Path hash = withSuperblock(block);

    ToolRun dump = timed(() -> Jverity.run("dump", hash.toString()));
    assertThat(dump.exitCode()).as("dump\n%s", dump).isIn(ExitCode.OK, ExitCode.BAD_SUPERBLOCK);
    if (dump.exitCode() == ExitCode.OK) {
      // A name no digest has: the fields are still shown, and one line says what is left out.
      assertThat(dump.stderrLines())
          .as("%s", dump)
          .hasSizeLessThanOrEqualTo(1)
          .allMatch(l -> l.contains("(from the superblock) is not supported by jverity"));
      assertThat(dump.stdoutLines().getFirst()).startsWith("VERITY header information for ");
    } else {
      assertOneErrorLine(dump);
    }

    ToolRun verify = timed(() -> verify(hash));
    int code = verify.exitCode();
    assertThat(code)
        .as("verify\n%s", verify)
        .isIn(
            ExitCode.OK,
            ExitCode.INVALID_PARAMETER,
            ExitCode.BAD_SUPERBLOCK,
            ExitCode.ROOT_HASH_MISMATCH,
            ExitCode.CORRUPTION,
            ExitCode.DEVICE_TOO_SMALL,
            ExitCode.WRONG_PARAMETERS,
            ExitCode.UNSUPPORTED_HASH);
    assertThat(verify.stdout()).isEmpty();
    assertNoStackTrace(verify);
    if (code == ExitCode.OK) {
      assertThat(verify.stderr()).isEmpty();
    } else if (code == ExitCode.INVALID_PARAMETER
        || code == ExitCode.BAD_SUPERBLOCK
        || code == ExitCode.DEVICE_TOO_SMALL
        || code == ExitCode.WRONG_PARAMETERS
        || code == ExitCode.UNSUPPORTED_HASH) {
      assertOneErrorLine(verify);
    } else {
      // A verification report: one line per corrupted block, then veritysetup's verdict line.
      assertThat(verify.stderrLines())
          .as("%s", verify)
          .isNotEmpty()
          .allMatch(l -> l.startsWith("jverity: ") || l.startsWith("Verification "));
    }
    if (dump.exitCode() == ExitCode.BAD_SUPERBLOCK) {
      assertThat(code)
          .as("verify reads the superblock as dump does\n%s", verify)
          .isEqualTo(ExitCode.BAD_SUPERBLOCK);
    }
    assertThat(code == ExitCode.UNSUPPORTED_HASH)
        .as(
            "verify refuses the algorithm exactly when dump says it is not supported\n%s\n%s",
            dump, verify)
        .isEqualTo(!dump.stderr().isEmpty() && dump.exitCode() == ExitCode.OK);
  }

  @Provide
  Arbitrary<byte[]> superblocks() {
    return Arbitraries.oneOf(structured(), mutated());
  }

  /** The signature and version right, the rest drawn from values near and far from valid ones. */
  private Arbitrary<byte[]> structured() {
    // Each field is mostly valid, so that many superblocks decode and verify gets to hash.
    Arbitrary<Integer> hashType =
        Arbitraries.frequencyOf(
            Tuple.of(8, Arbitraries.of(0, 1)),
            Tuple.of(1, Arbitraries.of(2, -1)),
            Tuple.of(1, Arbitraries.integers()));
    Arbitrary<String> alg =
        Arbitraries.frequencyOf(
            Tuple.of(8, Arbitraries.of("sha1", "sha224", "sha256", "sha384", "sha512", "SHA256")),
            Tuple.of(
                1,
                Arbitraries.of(
                    "md5", "", "sha256 ", "blah", "sha256sha256sha256sha256sha256sha256")),
            Tuple.of(1, Arbitraries.strings().ofMaxLength(40)));
    Arbitrary<Integer> blockSize =
        Arbitraries.frequencyOf(
            Tuple.of(8, Arbitraries.of(512, 1024, 2048, 4096, 65536, 524288)),
            Tuple.of(1, Arbitraries.of(0, 1, 256, 1048576, 333, 1000, -4096, Integer.MIN_VALUE)),
            Tuple.of(1, Arbitraries.integers()));
    Arbitrary<Long> dataBlocks =
        Arbitraries.frequencyOf(
            Tuple.of(6, Arbitraries.longs().between(1, 300)),
            Tuple.of(
                1, Arbitraries.of(0L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 40, 1L << 54)),
            Tuple.of(1, Arbitraries.longs()));
    Arbitrary<Integer> saltSize =
        Arbitraries.frequencyOf(
            Tuple.of(8, Arbitraries.integers().between(0, 256)),
            Tuple.of(2, Arbitraries.integers().between(0, 65535)));
    Arbitrary<byte[]> rest = Arbitraries.bytes().array(byte[].class).ofSize(512);
    return Combinators.combine(hashType, alg, blockSize, blockSize, dataBlocks, saltSize, rest)
        .as(
            (type, a, dbs, hbs, n, salt, noise) -> {
              java.nio.ByteBuffer b =
                  java.nio.ByteBuffer.wrap(noise).order(java.nio.ByteOrder.LITTLE_ENDIAN);
              b.put(0, "verity\0\0".getBytes(StandardCharsets.US_ASCII));
              b.putInt(8, 1);
              b.putInt(12, type);
              // 32 bytes or more leave no terminating NUL: that must be refused too.
              b.put(32, java.util.Arrays.copyOf(a.getBytes(StandardCharsets.UTF_8), 32));
              b.putInt(64, dbs);
              b.putInt(68, hbs);
              b.putLong(72, n);
              b.putShort(80, (short) (int) salt);
              return noise;
            });
  }

  /** The valid superblock with 1 to 8 bytes overwritten. */
  private Arbitrary<byte[]> mutated() {
    Arbitrary<Integer> position =
        Arbitraries.oneOf(
            Arbitraries.integers().between(0, 95), // signature to salt: the fields
            Arbitraries.integers().between(0, 511));
    Arbitrary<List<Integer>> positions = position.list().ofMinSize(1).ofMaxSize(8);
    Arbitrary<List<Byte>> values = Arbitraries.bytes().list().ofSize(8);
    return Combinators.combine(positions, values)
        .as(
            (pos, val) -> {
              byte[] sb = java.util.Arrays.copyOf(fuzzHash, 512);
              for (int i = 0; i < pos.size(); i++) {
                sb[pos.get(i)] = val.get(i);
              }
              return sb;
            });
  }

  private static Path withSuperblock(byte[] block) throws IOException {
    byte[] h = fuzzHash.clone();
    System.arraycopy(block, 0, h, 0, 512);
    return Files.write(fuzzDir.resolve("fuzzed.hash"), h);
  }

  private static ToolRun verify(Path hash) {
    return Jverity.run("verify", fuzzData.toString(), hash.toString(), fuzzRoot);
  }

  private static ToolRun timed(java.util.function.Supplier<ToolRun> run) {
    long start = System.nanoTime();
    ToolRun r = run.get();
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).as("took %s\n%s", took, r).isLessThan(QUICKLY);
    return r;
  }
}
