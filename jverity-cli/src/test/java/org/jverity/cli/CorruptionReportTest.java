package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.jverity.cli.command.ExitCode;

/**
 * Seeded one-byte corruptions of a jverity-formatted image, in a data block, in every tree level
 * and in each superblock field: jverity verify must fail with the right exit code and name the
 * right block (data block N, or hash block N (level L) counted from the start of the hash file),
 * and veritysetup verify must reject the same image.
 */
class CorruptionReportTest {
  static final String SALT = "e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d";
  static final String UUID = "a60c98d2-ae9b-4865-bfcb-b4e3ace11033";

  /**
   * An image shape to corrupt.
   *
   * @param alg hash algorithm
   * @param format hash type
   * @param dbs data block size, bytes
   * @param hbs hash block size, bytes
   * @param dataBlocks data blocks in the image
   * @param hashOffset --hash-offset, bytes (0: not given)
   * @param superblock false for --no-superblock
   * @param levels tree levels the image must have (checked against jverity's --json)
   */
  record Geometry(
      String alg,
      int format,
      int dbs,
      int hbs,
      long dataBlocks,
      long hashOffset,
      boolean superblock,
      int levels) {

    /** Options for format (with the UUID) and verify (without). */
    List<String> options(boolean forFormat) {
      List<String> o = new ArrayList<>();
      if (forFormat || !superblock) {
        o.addAll(
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
                SALT));
      }
      if (hashOffset != 0) {
        o.addAll(List.of("--hash-offset", String.valueOf(hashOffset)));
      }
      if (!superblock) {
        o.add("--no-superblock");
        if (!forFormat) {
          o.addAll(List.of("--data-blocks", String.valueOf(dataBlocks)));
        }
      } else if (forFormat) {
        o.addAll(List.of("--uuid", UUID));
      }
      return o;
    }

    /** Digests per hash block. */
    long fanout() {
      int digest =
          switch (alg) {
            case "sha1" -> 20;
            case "sha256" -> 32;
            case "sha512" -> 64;
            default -> throw new IllegalArgumentException(alg);
          };
      return Long.highestOneBit(hbs / digest);
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
          + " x"
          + dataBlocks
          + (hashOffset != 0 ? " offset " + hashOffset : "")
          + (superblock ? "" : " no-sb")
          + ", "
          + levels
          + " levels";
    }
  }

  static final List<Geometry> GEOMETRIES =
      List.of(
          new Geometry("sha256", 1, 512, 512, 257, 0, true, 3), // 17 + 2 + 1 hash blocks
          new Geometry("sha256", 1, 4096, 4096, 129, 0, true, 2), // 2 + 1
          new Geometry(
              "sha1", 0, 1024, 512, 16, 0, false, 1), // exactly one full block: level 0 is the top
          new Geometry("sha512", 1, 4096, 512, 65, 4096, true, 3)); // 9 + 2 + 1, superblock at 4096

  /** A formatted image: its files, its root hash and where each level lives. */
  record Image(Geometry g, Path data, Path hash, String root, List<long[]> levels) {
    /** Byte offset of level {@code l} on the hash file. */
    long levelOffset(int l) {
      return levels.get(l)[0];
    }

    /** Hash blocks in level {@code l}. */
    long levelBlocks(int l) {
      return levels.get(l)[1];
    }
  }

  private static final Pattern LEVEL =
      Pattern.compile("\"level\": (\\d+),\\s*\"offset\": (\\d+),\\s*\"blocks\": (\\d+)");
  private static final Pattern ROOT = Pattern.compile("\"rootHash\": \"([0-9a-f]+)\"");

  static Image format(Geometry g, Path dir) throws IOException {
    byte[] bytes = new byte[Math.toIntExact(g.dataBlocks() * g.dbs())];
    new SplittableRandom(g.toString().hashCode()).nextBytes(bytes);
    Path data = Files.write(dir.resolve("data.img"), bytes);
    Path hash = dir.resolve("data.hash");
    List<String> args =
        new ArrayList<>(List.of("format", data.toString(), hash.toString(), "--json"));
    args.addAll(g.options(true));
    ToolRun run = Jverity.run(args);
    assertThat(run.exitCode()).as("%s", run).isZero();

    Matcher root = ROOT.matcher(run.stdout());
    assertThat(root.find()).as("rootHash in %s", run.stdout()).isTrue();
    List<long[]> levels = new ArrayList<>();
    Matcher m = LEVEL.matcher(run.stdout());
    while (m.find()) {
      assertThat(Integer.parseInt(m.group(1)))
          .as("levels are listed in order")
          .isEqualTo(levels.size());
      levels.add(new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
    }
    assertThat(levels).as("levels of %s", g).hasSize(g.levels());
    Image image = new Image(g, data, hash, root.group(1), levels);
    assertThat(verify(image).exitCode()).as("a fresh image verifies").isZero();
    return image;
  }

  static ToolRun verify(Image im, String... extra) {
    List<String> args =
        new ArrayList<>(List.of("verify", im.data().toString(), im.hash().toString(), im.root()));
    args.addAll(im.g().options(false));
    args.addAll(List.of(extra));
    return Jverity.run(args);
  }

  static ToolRun veritysetupVerify(Image im) {
    List<String> args =
        new ArrayList<>(List.of("verify", im.data().toString(), im.hash().toString(), im.root()));
    args.addAll(im.g().options(false));
    return VeritysetupOracle.run(args);
  }

  /** XORs the byte at {@code offset} of {@code file} with {@code mask} (non-zero). */
  static void flip(Path file, long offset, int mask) throws IOException {
    byte[] b = Files.readAllBytes(file);
    b[Math.toIntExact(offset)] ^= (byte) mask;
    Files.write(file, b);
  }

  /** The lines of jverity's stderr that name one corrupted block each. */
  static List<String> corruptionLines(ToolRun r) {
    return r.stderrLines().stream().filter(l -> l.endsWith(" is corrupted")).toList();
  }

  // ---- data blocks ----

  static Stream<Arguments> dataBlocks() {
    return GEOMETRIES.stream()
        .flatMap(
            g ->
                Stream.of(0L, g.dataBlocks() / 2, g.dataBlocks() - 1).map(b -> Arguments.of(g, b)));
  }

  @ParameterizedTest(name = "{0}: data block {1}")
  @MethodSource("dataBlocks")
  void corruptDataBlockIsNamed(Geometry g, long block, @TempDir Path dir) throws IOException {
    Image im = format(g, dir);
    long offset = block * g.dbs() + new SplittableRandom(block).nextInt(g.dbs());
    flip(im.data(), offset, 0x01);

    ToolRun r = verify(im);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.CORRUPTION);
    assertThat(corruptionLines(r))
        .as("%s", r)
        .containsExactly(
            "jverity: data block " + block + " (position " + block * g.dbs() + ") is corrupted");
    assertThat(r.stderr())
        .contains("jverity: verification failed: 1 corrupted block (1 data, 0 hash).");
    assertThat(r.stdout()).isEmpty();
    assertThat(veritysetupVerify(im).exitCode()).as("veritysetup verify").isNotZero();
  }

  // ---- hash blocks, every level ----

  static Stream<Arguments> hashBlocks() {
    List<Arguments> a = new ArrayList<>();
    for (Geometry g : GEOMETRIES) {
      for (int level = 0; level < g.levels(); level++) {
        long blocks = Math.ceilDiv(g.dataBlocks(), pow(g.fanout(), level + 1));
        a.add(Arguments.of(g, level, 0L));
        if (blocks > 1) {
          a.add(Arguments.of(g, level, blocks - 1));
        }
      }
    }
    return a.stream();
  }

  @ParameterizedTest(name = "{0}: level {1}, block {2} of the level")
  @MethodSource("hashBlocks")
  void corruptHashBlockIsNamedWithItsLevel(Geometry g, int level, long index, @TempDir Path dir)
      throws IOException {
    Image im = format(g, dir);
    assertThat(index).isLessThan(im.levelBlocks(level));
    long blockStart = im.levelOffset(level) + index * g.hbs();
    // A byte inside the first digest: always in use, whatever the level's fill.
    flip(
        im.hash(),
        blockStart + new SplittableRandom(level * 31L + index).nextInt(digestSize(g)),
        0x80);
    long hashBlock = blockStart / g.hbs();

    ToolRun r = verify(im);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.CORRUPTION);
    assertThat(corruptionLines(r))
        .as("%s", r)
        .containsExactly(
            "jverity: hash block "
                + hashBlock
                + " (level "
                + level
                + ", position "
                + blockStart
                + ") is corrupted");
    // Everything below the corrupted block is unverifiable, and said so.
    long span = pow(g.fanout(), level + 1); // data blocks under one level-`level` hash block
    long under = Math.min(g.dataBlocks(), (index + 1) * span) - index * span;
    assertThat(r.stderr()).contains("jverity: " + under + " data blocks could not be checked");
    assertThat(r.stdout()).isEmpty();
    assertThat(veritysetupVerify(im).exitCode()).as("veritysetup verify").isNotZero();
  }

  /**
   * A byte in the unused (spare) tail of each level's last block. Below the top, the block no
   * longer matches its parent; in the top block nothing else notices, so the spare check must.
   */
  static Stream<Arguments> spareAreas() {
    return GEOMETRIES.stream()
        .flatMap(
            g ->
                java.util.stream.IntStream.range(0, g.levels())
                    .mapToObj(level -> Arguments.of(g, level)));
  }

  @ParameterizedTest(name = "{0}: spare bytes of level {1}")
  @MethodSource("spareAreas")
  void dirtySpareAreaIsNamed(Geometry g, int level, @TempDir Path dir) throws IOException {
    Image im = format(g, dir);
    long last = im.levelBlocks(level) - 1;
    long blockStart = im.levelOffset(level) + last * g.hbs();
    flip(
        im.hash(),
        blockStart + g.hbs() - 1,
        0x01); // every geometry here leaves the last block's tail unused
    long hashBlock = blockStart / g.hbs();

    ToolRun r = verify(im);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.CORRUPTION);
    String expected =
        level == g.levels() - 1
            ? "jverity: hash block "
                + hashBlock
                + " (level "
                + level
                + ", position "
                + blockStart
                + ", spare area not zeroed) is corrupted"
            : "jverity: hash block "
                + hashBlock
                + " (level "
                + level
                + ", position "
                + blockStart
                + ") is corrupted";
    assertThat(corruptionLines(r)).as("%s", r).containsExactly(expected);
    assertThat(r.stderr()).doesNotContain("Exception").doesNotContain("at org.");
    assertThat(veritysetupVerify(im).exitCode()).as("veritysetup verify").isNotZero();
  }

  // ---- superblock fields ----

  @ParameterizedTest(name = "{0}: byte {1} ^ {2}")
  @CsvSource({
    "magic,           0, 0x01, no verity superblock",
    "magic,           6, 0x20, no verity superblock",
    "version,         8, 0x03, unsupported superblock version 2",
    "version,        11, 0x80, unsupported superblock version",
    "hash type,      12, 0x02, unsupported hash type 3",
    "data block size, 65, 0x01, data block size 768",
    "hash block size, 68, 0x01, hash block size 513",
    "data block size, 67, 0x40, data block size",
    "salt size,      81, 0x01, salt size 288",
  })
  void corruptSuperblockIsRejected(
      String field, int offset, String mask, String message, @TempDir Path dir) throws IOException {
    Geometry g = GEOMETRIES.getFirst();
    Image im = format(g, dir);
    flip(im.hash(), g.hashOffset() + offset, Integer.decode(mask));

    ToolRun r = verify(im);
    assertThat(r.exitCode()).as("%s: %s", field, r).isEqualTo(ExitCode.BAD_SUPERBLOCK);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderr()).startsWith("jverity: ").contains(im.hash().toString()).contains(message);
    assertThat(r.stdout()).isEmpty();
    assertThat(veritysetupVerify(im).exitCode()).as("veritysetup verify, %s", field).isNotZero();

    ToolRun dump = Jverity.run("dump", im.hash().toString());
    assertThat(dump.exitCode()).as("dump: %s", dump).isEqualTo(ExitCode.BAD_SUPERBLOCK);
    assertThat(VeritysetupOracle.run("dump", im.hash().toString()).exitCode())
        .as("veritysetup dump")
        .isNotZero();
  }

  /**
   * A flipped bit in the algorithm name makes a name no digest has ("xha256"): the superblock is
   * otherwise sound, so dump still shows it, and verify says the algorithm is not supported.
   */
  @Test
  void aCorruptAlgorithmNameIsAnUnsupportedHash(@TempDir Path dir) throws IOException {
    Geometry g = GEOMETRIES.getFirst();
    Image im = format(g, dir);
    flip(im.hash(), g.hashOffset() + 32, 0x0b);

    ToolRun r = verify(im);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.UNSUPPORTED_HASH);
    assertThat(r.stderrLines())
        .as("%s", r)
        .singleElement()
        .asString()
        .startsWith("jverity: " + im.hash() + ": hash algorithm x")
        .endsWith("(from the superblock) is not supported by jverity");
    assertThat(r.stdout()).isEmpty();
    assertThat(veritysetupVerify(im).exitCode()).as("veritysetup verify").isNotZero();

    ToolRun dump =
        Jverity.run("dump", "--hash-offset", String.valueOf(g.hashOffset()), im.hash().toString());
    assertThat(dump.exitCode()).as("dump: %s", dump).isZero();
    assertThat(dump.headerField("Hash algorithm")).as("%s", dump).startsWith("x");
  }

  // ---- wrong root hash, wrong parameters, contradicting options ----

  @Test
  void wrongRootHashOnIntactImageIsRootMismatch(@TempDir Path dir) throws IOException {
    Image im = format(GEOMETRIES.get(1), dir);
    char last = im.root().charAt(im.root().length() - 1);
    String wrong = im.root().substring(0, im.root().length() - 1) + (last == '0' ? '1' : '0');
    Image wrongRoot = new Image(im.g(), im.data(), im.hash(), wrong, im.levels());

    ToolRun r = verify(wrongRoot);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
    assertThat(corruptionLines(r)).as("no block is blamed").isEmpty();
    assertThat(r.stderr())
        .contains("jverity: verification of root hash failed")
        .contains(im.root())
        .contains("wrong root hash?");
    assertThat(veritysetupVerify(wrongRoot).exitCode()).as("veritysetup verify").isNotZero();
  }

  @ParameterizedTest(name = "--no-superblock, verified with {0}")
  @CsvSource({
    "wrong salt,   --salt,   00",
    "no salt,      --salt,   -",
    "wrong format, --format, 1",
  })
  void wrongParametersWithoutSuperblockMatchNothing(
      String what, String option, String value, @TempDir Path dir) throws IOException {
    Geometry g = GEOMETRIES.get(2); // sha1 v0, no superblock
    Image im = format(g, dir);
    List<String> args =
        new ArrayList<>(List.of("verify", im.data().toString(), im.hash().toString(), im.root()));
    List<String> options = new ArrayList<>(g.options(false));
    options.set(options.indexOf(option) + 1, value);
    args.addAll(options);

    ToolRun r = Jverity.run(args);
    assertThat(r.exitCode()).as("%s: %s", what, r).isEqualTo(ExitCode.WRONG_PARAMETERS);
    assertThat(r.stderr()).startsWith("jverity: verification failed: no block matches its hash");
    assertThat(r.stderrLines()).hasSize(1);
    assertThat(r.stdout()).isEmpty();
    assertThat(VeritysetupOracle.run(args).exitCode())
        .as("veritysetup verify with %s", what)
        .isNotZero();
  }

  @ParameterizedTest(name = "superblock contradicted by {0} {1}")
  @CsvSource({
    "--salt,            00",
    "--salt,            -",
    "--hash,            sha1",
    "--format,          0",
    "--data-block-size, 1024",
    "--hash-block-size, 4096",
    "--data-blocks,     256",
    "--uuid,            a60c98d2-ae9b-4865-bfcb-b4e3ace11034",
  })
  void optionContradictingSuperblockIsMismatch(String option, String value, @TempDir Path dir)
      throws IOException {
    Image im = format(GEOMETRIES.getFirst(), dir);
    ToolRun r = verify(im, option, value);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.SUPERBLOCK_MISMATCH);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderr())
        .startsWith("jverity: ")
        .contains("superblock does not match the options");
    assertThat(r.stdout()).isEmpty();
  }

  @Test
  void optionsAgreeingWithSuperblockAreAccepted(@TempDir Path dir) throws IOException {
    Geometry g = GEOMETRIES.getFirst();
    Image im = format(g, dir);
    ToolRun r =
        verify(
            im,
            "--salt",
            SALT,
            "--hash",
            "SHA256",
            "--format",
            "1",
            "--data-block-size",
            "512",
            "--hash-block-size",
            "512",
            "--data-blocks",
            String.valueOf(g.dataBlocks()),
            "--uuid",
            UUID);
    assertThat(r.exitCode()).as("%s", r).isZero();
  }

  // ---- many corruptions ----

  @Test
  void moreThanAHundredCorruptionsListTheFirstHundredThenCount(@TempDir Path dir)
      throws IOException {
    Geometry g = GEOMETRIES.getFirst(); // 257 data blocks
    Image im = format(g, dir);
    // 120 of the 257 blocks, picked by a seeded shuffle, one random byte flipped in each: fewer
    // than half, so this is damage to list, not a hash file made for other data.
    List<Long> blocks = new ArrayList<>();
    for (long b = 0; b < g.dataBlocks(); b++) {
      blocks.add(b);
    }
    java.util.Collections.shuffle(blocks, new java.util.Random(43));
    List<Long> corrupted = blocks.subList(0, 120).stream().sorted().toList();
    byte[] data = Files.readAllBytes(im.data());
    SplittableRandom rnd = new SplittableRandom(43);
    for (long b : corrupted) {
      data[Math.toIntExact(b * g.dbs() + rnd.nextInt(g.dbs()))] ^= (byte) (1 + rnd.nextInt(255));
    }
    Files.write(im.data(), data);

    ToolRun r = verify(im);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.CORRUPTION);
    List<String> expected = new ArrayList<>();
    for (int b = 0; b < 100; b++) {
      long block = corrupted.get(b);
      expected.add(
          "jverity: data block " + block + " (position " + block * g.dbs() + ") is corrupted");
    }
    assertThat(corruptionLines(r)).containsExactlyElementsOf(expected);
    assertThat(r.stderr()).contains("jverity: ... and 20 more corrupted blocks");
    assertThat(r.stderr()).contains("jverity: verification failed: 120 corrupted blocks");
    assertThat(veritysetupVerify(im).exitCode()).isNotZero();
  }

  // ---- a hash file made for other data ----

  @Test
  void aHashFileOfOtherDataIsSaidInOneLineWithTheCounts(@TempDir Path dir) throws IOException {
    Geometry g = GEOMETRIES.get(1); // 129 data blocks of 4 KiB
    Image im = format(g, dir);
    byte[] before = Files.readAllBytes(im.data());
    byte[] other = new byte[before.length];
    new SplittableRandom(7).nextBytes(other);
    System.arraycopy(before, 0, other, 0, g.dbs()); // one block in common: it still matches
    Files.write(im.data(), other);

    ToolRun r = verify(im);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.CORRUPTION);
    assertThat(r.stderrLines())
        .as("%s", r)
        .containsExactly(
            "jverity: hash file does not belong to this data:"
                + " 128 of 129 data blocks mismatch (or the data was rewritten after it was formatted)");
    assertThat(r.stdout()).isEmpty();
    ToolRun json = verify(im, "--json");
    assertThat(json.stdout()).contains("\"foreignHashFile\": true", "\"corruptedDataBlocks\": 128");
    assertThat(veritysetupVerify(im).exitCode()).as("veritysetup verify").isNotZero();

    // With another image's root hash too, still one line: it says the root does not match either.
    String wrong = im.root().substring(0, 63) + (im.root().charAt(63) == '0' ? '1' : '0');
    ToolRun both = verify(new Image(g, im.data(), im.hash(), wrong, im.levels()));
    assertThat(both.exitCode()).as("%s", both).isEqualTo(ExitCode.CORRUPTION);
    assertThat(both.stderrLines())
        .as("%s", both)
        .singleElement()
        .asString()
        .startsWith(
            "jverity: hash file does not belong to this data: 128 of 129 data blocks mismatch")
        .endsWith(
            "; the tree does not hash to the root hash given either (it hashes to "
                + im.root()
                + ")");
  }

  static int digestSize(Geometry g) {
    return switch (g.alg()) {
      case "sha1" -> 20;
      case "sha256" -> 32;
      case "sha512" -> 64;
      default -> throw new IllegalArgumentException(g.alg());
    };
  }

  static long pow(long base, int exp) {
    long r = 1;
    for (int i = 0; i < exp; i++) {
      r *= base;
    }
    return r;
  }
}
