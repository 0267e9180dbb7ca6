package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.jverity.testkit.Fsverity;
import org.jverity.testkit.ToolResult;

/**
 * {@code jverity digest} against the real {@code fsverity digest} (fsverity-utils; bin/test
 * installs it): digest lines, Merkle tree files and descriptor files byte-identical over both
 * algorithms, block sizes 512 to 65536, salts of 0, 1 and 32 bytes, and files of 0 bytes, 1 byte,
 * one block, one block + 1 and a multi-level tree. A missing fsverity fails, naming the package.
 */
public class DigestCommandTest {
  @TempDir static Path dir;
  static final List<Path> FILES = new ArrayList<>();

  @BeforeAll
  static void files() throws IOException {
    SplittableRandom r = new SplittableRandom(575);
    for (int bs : new int[] {512, 1024, 4096, 65536}) {
      // Multi-level: more blocks than one hash block covers with sha512 (bs / 64), times 3, plus a
      // tail.
      for (long size : new long[] {0, 1, bs, bs + 1, (long) bs * (bs / 64) * 3 + 17}) {
        Path f = dir.resolve("f-" + bs + "-" + size);
        if (!Files.exists(f)) {
          byte[] b = new byte[(int) size];
          r.nextBytes(b);
          Files.write(f, b);
        }
        if (!FILES.contains(f)) {
          FILES.add(f);
        }
      }
    }
  }

  public static ToolRun fsverity(List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("digest"));
    cmd.addAll(args);
    ToolResult r = Fsverity.tool().timeout(Duration.ofSeconds(60)).run(cmd);
    return new ToolRun(r.exit(), r.out(), r.stderr());
  }

  static Stream<Arguments> matrix() {
    List<Arguments> a = new ArrayList<>();
    for (String alg : new String[] {"sha256", "sha512"}) {
      for (int bs : new int[] {512, 1024, 4096, 65536}) {
        for (String salt :
            new String[] {
              "", "5a", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
            }) {
          a.add(Arguments.of(alg, bs, salt));
        }
      }
    }
    return a.stream();
  }

  @ParameterizedTest(name = "{0}, {1}-byte blocks, salt ''{2}''")
  @MethodSource("matrix")
  void sameLinesTreesAndDescriptorsAsFsverity(String alg, int bs, String salt) throws Exception {
    List<String> opts = List.of("--hash-alg=" + alg, "--block-size=" + bs, "--salt=" + salt);
    for (Path f : FILES) {
      if (!f.getFileName().toString().startsWith("f-" + bs + "-")) {
        continue;
      }
      List<String> j = new ArrayList<>(List.of("digest", f.toString()));
      j.addAll(opts);
      j.addAll(
          List.of(
              "--out-merkle-tree=" + dir.resolve("jt"), "--out-descriptor=" + dir.resolve("jd")));
      List<String> v = new ArrayList<>(List.of(f.toString()));
      v.addAll(opts);
      v.addAll(
          List.of(
              "--out-merkle-tree=" + dir.resolve("ft"), "--out-descriptor=" + dir.resolve("fd")));
      ToolRun mine = Jverity.run(j);
      ToolRun theirs = fsverity(v);
      assertThat(theirs.exitCode()).as("%s", theirs).isZero();
      assertThat(mine.exitCode()).as("%s", mine).isZero();
      assertThat(mine.stdout()).as(f.toString()).isEqualTo(theirs.stdout());
      assertThat(Files.readAllBytes(dir.resolve("jt")))
          .as("tree of %s", f)
          .isEqualTo(Files.readAllBytes(dir.resolve("ft")));
      assertThat(Files.readAllBytes(dir.resolve("jd")))
          .as("descriptor of %s", f)
          .isEqualTo(Files.readAllBytes(dir.resolve("fd")));
    }
  }

  @ParameterizedTest(name = "flags ''{0}''")
  @CsvSource({
    "''",
    "--compact",
    "--for-builtin-sig",
    "--compact --for-builtin-sig",
    "--hash-alg=sha512 --for-builtin-sig"
  })
  void severalFilesInArgumentOrderWithEachOutputForm(String flags) throws Exception {
    List<String> opts = flags.isEmpty() ? List.of() : List.of(flags.split(" "));
    List<String> names = FILES.stream().map(Path::toString).toList().reversed();
    List<String> j = new ArrayList<>(List.of("digest"));
    j.addAll(names);
    j.addAll(opts);
    List<String> v = new ArrayList<>(names);
    v.addAll(opts);
    ToolRun mine = Jverity.run(j);
    assertThat(mine.exitCode()).as("%s", mine).isZero();
    assertThat(mine.stdout()).isEqualTo(fsverity(v).stdout());
  }

  @Test
  void severalFilesWithSidecarsAsFsverity() throws Exception {
    List<String> names = FILES.stream().map(Path::toString).toList();
    List<String> j = new ArrayList<>(List.of("digest", "--block-size=1024"));
    j.addAll(names);
    j.addAll(
        List.of("--out-merkle-tree=" + dir.resolve("jt"), "--out-descriptor=" + dir.resolve("jd")));
    List<String> v = new ArrayList<>(names);
    v.addAll(
        List.of(
            "--block-size=1024",
            "--out-merkle-tree=" + dir.resolve("ft"),
            "--out-descriptor=" + dir.resolve("fd")));
    ToolRun mine = Jverity.run(j);
    assertThat(mine.stdout()).isEqualTo(fsverity(v).stdout());
    assertThat(Files.readAllBytes(dir.resolve("jt")))
        .isEqualTo(Files.readAllBytes(dir.resolve("ft")));
    assertThat(Files.readAllBytes(dir.resolve("jd")))
        .isEqualTo(Files.readAllBytes(dir.resolve("fd")));
  }

  @Test
  void recursivePrintsEveryRegularFileInSortedOrder(@TempDir Path tree) throws Exception {
    Files.createDirectories(tree.resolve("b/c"));
    Files.writeString(tree.resolve("b/c/z"), "z");
    Files.writeString(tree.resolve("b/a"), "a".repeat(5000));
    Files.writeString(tree.resolve("a"), "");
    Files.createSymbolicLink(tree.resolve("link"), tree.resolve("a"));
    ToolRun mine = Jverity.run("digest", "--recursive", tree.toString());
    assertThat(mine.exitCode()).as("%s", mine).isZero();
    ToolRun theirs =
        fsverity(
            List.of(
                tree.resolve("a").toString(),
                tree.resolve("b/a").toString(),
                tree.resolve("b/c/z").toString()));
    assertThat(mine.stdout()).isEqualTo(theirs.stdout());
  }

  /**
   * A tree as a container image has one: files in directories at several depths, names that sort on
   * either side of a subdirectory's "/" ("b-", "b.d/", "b/", "b0"), a file or two past each size
   * the command hashes differently (whole in memory, through a device, on every thread), more files
   * than a batch, links that are not followed: the lines of {@code fsverity digest} given the paths
   * in {@code LC_ALL=C sort} order, on one thread or several.
   */
  @ParameterizedTest(name = "--threads {0}")
  @CsvSource({"1", "3"})
  void recursiveTreeInByteOrderAsFsverityOverSortedFind(int threads, @TempDir Path tree)
      throws Exception {
    SplittableRandom r = new SplittableRandom(18);
    List<String> names =
        List.of("b-", "b0", "a b", "B", "b.d/x", "b/a", "b/c/z", "b/c-", "z/y/x/w");
    List<Path> files = new ArrayList<>();
    for (String n : names) {
      files.add(tree.resolve(n));
    }
    for (int i = 0; i < 700; i++) {
      files.add(tree.resolve("many/d" + i % 7 + "/f" + i));
    }
    files.add(tree.resolve("many/whole-limit-plus-1"));
    files.add(tree.resolve("many/big"));
    for (Path f : files) {
      Files.createDirectories(f.getParent());
      String name = f.getFileName().toString();
      int size =
          switch (name) {
            case "whole-limit-plus-1" -> (1 << 20) + 1;
            case "big" -> (9 << 20) + 5;
            default -> r.nextInt(20_000);
          };
      byte[] b = new byte[size];
      r.nextBytes(b);
      Files.write(f, b);
    }
    Files.createDirectories(tree.resolve("empty"));
    Files.createSymbolicLink(tree.resolve("b/link-to-file"), tree.resolve("b0"));
    Files.createSymbolicLink(tree.resolve("b/link-to-dir"), tree.resolve("many"));
    List<String> sorted =
        files.stream().map(Path::toString).sorted().toList(); // ASCII: byte order, as C sort
    ToolRun mine = Jverity.run("digest", "--recursive", "--threads", "" + threads, tree.toString());
    assertThat(mine.exitCode()).as("%s", mine).isZero();
    ToolRun theirs = fsverity(sorted);
    assertThat(theirs.exitCode()).as("%s", theirs).isZero();
    assertThat(mine.stdout()).isEqualTo(theirs.stdout());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "--salt=abc | 3 | --salt",
        "--salt=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20 | 3 | --salt",
        "--block-size=1000 | 3 | --block-size",
        "--block-size=4k | 3 | --block-size",
        "--hash-alg=sha1 | 3 | --hash-alg",
        "--hash-alg=SHA256 | 3 | --hash-alg",
        "--hash-alg=blake2b-512 | 3 | --hash-alg",
        "--block-size=64 --hash-alg=sha512 | 3 | block size",
        "--frobnicate | 2 | frobnicate",
      })
  void badOptionValuesAreOneLineWithTheirCode(String flags, int code, String names) {
    List<String> j = new ArrayList<>(List.of("digest", FILES.get(0).toString()));
    j.addAll(List.of(flags.split(" ")));
    ToolRun r = Jverity.run(j);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(code);
    assertThat(r.stdout()).isEmpty();
    assertThat(r.stderrLines()).singleElement().asString().startsWith("jverity: ").contains(names);
  }

  @Test
  void missingFilesAndDirectoriesAreIoErrors() {
    ToolRun missing = Jverity.run("digest", dir.resolve("nosuch").toString());
    assertThat(missing.exitCode()).isEqualTo(4);
    assertThat(missing.stderrLines())
        .singleElement()
        .asString()
        .contains("nosuch")
        .contains("no such file");
    ToolRun directory = Jverity.run("digest", dir.toString());
    assertThat(directory.exitCode()).isEqualTo(4);
    assertThat(directory.stderrLines()).singleElement().asString().contains("is a directory");
  }
}
