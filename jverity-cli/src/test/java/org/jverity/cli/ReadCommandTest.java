package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.cli.command.ExitCode;

/** {@code jverity read}: verified bytes out, nothing past the first block that does not verify. */
class ReadCommandTest {
  @TempDir Path dir;
  Path data;
  Path hash;
  Path out;
  byte[] bytes;
  String root;

  @BeforeEach
  void image() throws Exception {
    data = dir.resolve("data.img");
    hash = dir.resolve("data.hash");
    out = dir.resolve("out.bin");
    bytes = new byte[600 * 1024];
    new java.util.Random(8).nextBytes(bytes);
    Files.write(data, bytes);
    // veritysetup formats, jverity reads: the oracle's tree, 1 KiB blocks so there are three
    // levels.
    ToolRun f =
        VeritysetupOracle.run(
            "format",
            data.toString(),
            hash.toString(),
            "--data-block-size",
            "1024",
            "--hash-block-size",
            "1024",
            "--salt",
            "aa");
    assertThat(f.exitCode()).as("%s", f).isZero();
    root = f.headerField("Root hash");
  }

  private ToolRun read(String... extra) {
    String[] args = {"read", data.toString(), hash.toString(), root, "--output", out.toString()};
    String[] all = Arrays.copyOf(args, args.length + extra.length);
    System.arraycopy(extra, 0, all, args.length, extra.length);
    return Jverity.run(all);
  }

  @ParameterizedTest(name = "offset {0}, length {1}")
  @CsvSource({"0, 614400", "0, 1", "1023, 2", "5000, 100000", "614399, 1", "614400, 0", "100, 0"})
  void writesExactlyTheRangeAsked(long offset, int length) throws Exception {
    ToolRun r = read("--offset", String.valueOf(offset), "--length", String.valueOf(length));
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(Files.readAllBytes(out))
        .isEqualTo(Arrays.copyOfRange(bytes, (int) offset, (int) offset + length));
  }

  @ParameterizedTest(name = "--offset {0} --length {1}")
  @CsvSource({
    "1K, 512K, 1024, 524288",
    "4KiB, 1k, 4096, 1024",
    "0, 585KiB, 0, 599040",
    "599040, 15K, 599040, 15360"
  })
  void sizesTakeSuffixesInPowersOf1024(String offset, String length, int from, int bytesLong)
      throws Exception {
    ToolRun r = read("--offset", offset, "--length", length, "--cache-size", "1M");
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(Files.readAllBytes(out))
        .isEqualTo(Arrays.copyOfRange(bytes, from, from + bytesLong));
  }

  @Test
  void readsToTheEndByDefault() throws Exception {
    assertThat(read().exitCode()).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(bytes);
  }

  @Test
  void stopsAtTheCorruptDataBlockAndLeavesNoOutput() throws Exception {
    bytes[400 * 1024 + 7] ^= 0x10;
    Files.write(data, bytes);
    ToolRun r = read();
    assertThat(r.exitCode()).isEqualTo(ExitCode.CORRUPTION);
    assertThat(r.stderr())
        .isEqualTo("jverity: " + data + ": data block 400 (position 409600) is corrupted\n");
    // The verified bytes before block 400 go to stdout only: --output appears on success alone.
    assertThat(out).doesNotExist();
    assertThat(dir.toFile().list())
        .as("no temporary left")
        .noneMatch(n -> n.endsWith(".jverity-tmp"));
  }

  @Test
  void aReadOfManyPiecesWritesEveryVerifiedPieceBeforeTheCorruptBlock() throws Exception {
    // 1,300 blocks of 4 KiB: six pieces of 1 MiB, written while the next is verified.
    FormattedImage im = FormattedImage.create(dir, "long", 1300);
    byte[] original = Files.readAllBytes(im.data());
    ToolRun whole =
        Jverity.run(
            "read", im.data().toString(), im.hash().toString(), im.root(), "-o", out.toString());
    assertThat(whole.exitCode()).as("%s", whole).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(original);

    im.corrupt(1000);
    ToolRun r =
        Jverity.run(
            "read", im.data().toString(), im.hash().toString(), im.root(), "-o", out.toString());
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.CORRUPTION);
    assertThat(r.stderr())
        .isEqualTo("jverity: " + im.data() + ": data block 1000 (position 4096000) is corrupted\n");
    assertThat(Files.readAllBytes(out)).as("-o is replaced on success only").isEqualTo(original);
    Path stdout = dir.resolve("stdout.bin");
    ToolRun s =
        ChildJverity.run(stdout, "read", im.data().toString(), im.hash().toString(), im.root());
    assertThat(s.exitCode()).as("%s", s).isEqualTo(ExitCode.CORRUPTION);
    assertThat(Files.readAllBytes(stdout)).isEqualTo(Arrays.copyOf(original, 1000 * 4096));
  }

  @Test
  void aWriteThatFailsEndsTheReadWithItsErrorAndNoHang() throws Exception {
    // Twelve pieces of 1 MiB: more than the writer's queue holds, so the first failed write is
    // met while later ones are queued; each is waited for, and the error is the first write's.
    FormattedImage im = FormattedImage.create(dir, "full", 3000);
    ToolRun r =
        Jverity.run(
            "read", im.data().toString(), im.hash().toString(), im.root(), "-o", "/dev/full");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.IO_ERROR);
    assertThat(r.stderr())
        .isEqualTo("jverity: /dev/full: cannot write at byte 0: no space left on device\n");
  }

  @Test
  void withoutOutputTheBytesGoToStdout() throws Exception {
    List<String> cmd = ServerProcess.javaCommand(); // a child JVM: stdout is the process's own
    cmd.addAll(
        List.of(
            "read",
            data.toString(),
            hash.toString(),
            root,
            "--offset",
            "1000",
            "--length",
            "300000"));
    Process p =
        Jverity.detailed(new ProcessBuilder(cmd))
            .redirectOutput(out.toFile())
            .redirectError(dir.resolve("err").toFile())
            .start();
    assertThat(p.waitFor(1, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(dir.resolve("err"))).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(Arrays.copyOfRange(bytes, 1000, 301000));
  }

  @Test
  void ignoreCorruptionWritesTheStoredBytesAndSaysWhich() throws Exception {
    bytes[10 * 1024] ^= 1;
    Files.write(data, bytes);
    ToolRun r = read("--ignore-corruption");
    assertThat(r.exitCode()).isZero();
    assertThat(r.stderr())
        .isEqualTo(
            "jverity: " + data + ": data block 10 (position 10240) is corrupted (ignored)\n");
    assertThat(Files.readAllBytes(out)).isEqualTo(bytes);
  }

  @Test
  void aCorruptHashBlockIsNamedWithItsLevel() throws Exception {
    byte[] tree = Files.readAllBytes(hash);
    tree[tree.length - 1024 + 3] ^=
        1; // the last level-0 hash block: it covers data blocks 576..599
    Files.write(hash, tree);
    ToolRun r = read();
    assertThat(r.exitCode()).isEqualTo(ExitCode.CORRUPTION);
    long last = tree.length / 1024 - 1;
    assertThat(r.stderr())
        .isEqualTo(
            "jverity: "
                + hash
                + ": hash block "
                + last
                + " (level 0, position "
                + last * 1024
                + ") is corrupted\n");
    assertThat(out).doesNotExist(); // a failed read leaves no --output
    assertThat(VeritysetupOracle.run("verify", data.toString(), hash.toString(), root).exitCode())
        .isNotZero();
  }

  @Test
  void aWrongRootHashReadsNothingAndSaysSoWithVerifysExitCode() throws Exception {
    String right = root;
    root = root.substring(0, 63) + (root.charAt(63) == '0' ? '1' : '0');
    ToolRun r = read();
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
    assertThat(r.stderrLines())
        .as("%s", r)
        .containsExactly(
            "jverity: wrong root hash: the tree on "
                + hash
                + " hashes to "
                + right
                + " (its top block agrees with the blocks below it)");
    assertThat(out).as("a failed read leaves no --output").doesNotExist();
    ToolRun verify = Jverity.run("verify", data.toString(), hash.toString(), root);
    assertThat(verify.exitCode()).as("verify says the same: %s", verify).isEqualTo(r.exitCode());
  }

  @Test
  void aWrongRootHashWithIgnoreCorruptionIsSaidOnce() throws Exception {
    root = root.substring(0, 63) + (root.charAt(63) == '0' ? '1' : '0');
    ToolRun r = read("--ignore-corruption");
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(r.stderrLines())
        .as("%s", r)
        .singleElement()
        .asString()
        .startsWith("jverity: wrong root hash: ")
        .endsWith(" (ignored)");
    assertThat(Files.readAllBytes(out)).isEqualTo(bytes);
  }

  @Test
  void aDamagedTopBlockIsNamedNotTakenForAWrongRootHash() throws Exception {
    byte[] tree = Files.readAllBytes(hash);
    tree[1024 + 5] ^= 1; // hash block 1, the top (level 1): the digest of level-0 block 0
    Files.write(hash, tree);
    ToolRun r = read();
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.CORRUPTION);
    assertThat(r.stderr())
        .isEqualTo("jverity: " + hash + ": hash block 1 (level 1, position 1024) is corrupted\n");
    ToolRun verify = Jverity.run("verify", data.toString(), hash.toString(), root);
    assertThat(verify.exitCode()).as("verify says the same: %s", verify).isEqualTo(r.exitCode());
    assertThat(verify.stderr())
        .contains("jverity: hash block 1 (level 1, position 1024) is corrupted");
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"--salt, ab", "--salt, -", "--format, 0"})
  void wrongParametersWithoutASuperblockAreSaidSo(String option, String value) throws Exception {
    Path bare = dir.resolve("bare.hash");
    ToolRun f =
        VeritysetupOracle.run(
            "format",
            data.toString(),
            bare.toString(),
            "--no-superblock",
            "--data-block-size",
            "1024",
            "--hash-block-size",
            "1024",
            "--salt",
            "aa");
    assertThat(f.exitCode()).as("%s", f).isZero();
    List<String> args =
        new ArrayList<>(
            List.of(
                "read",
                data.toString(),
                bare.toString(),
                f.headerField("Root hash"),
                "--output",
                out.toString(),
                "--no-superblock",
                "--data-block-size",
                "1024",
                "--hash-block-size",
                "1024",
                "--salt",
                "aa"));
    if (args.contains(option)) {
      args.set(args.lastIndexOf(option) + 1, value);
    } else {
      args.addAll(List.of(option, value));
    }
    ToolRun r = Jverity.run(args);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.WRONG_PARAMETERS);
    assertThat(r.stderrLines())
        .as("%s", r)
        .containsExactly(
            "jverity: root hash does not match, and no block"
                + " under the top matches its hash either: wrong salt, hash algorithm, format or block size?");
    assertThat(out).as("a failed read leaves no --output").doesNotExist();
    List<String> verify = new ArrayList<>(args.subList(1, args.size()));
    verify.removeAll(List.of("--output", out.toString()));
    verify.addFirst("verify");
    assertThat(Jverity.run(verify).exitCode()).as("verify's exit code").isEqualTo(r.exitCode());
  }

  @Test
  void aWrongHashAlgorithmIsNamed() throws Exception {
    Path bare = dir.resolve("bare.hash");
    ToolRun f =
        VeritysetupOracle.run(
            "format", data.toString(), bare.toString(), "--no-superblock", "--salt", "aa");
    assertThat(f.exitCode()).as("%s", f).isZero();
    ToolRun r =
        Jverity.run(
            "read",
            data.toString(),
            bare.toString(),
            f.headerField("Root hash"),
            "--output",
            out.toString(),
            "--no-superblock",
            "--salt",
            "aa",
            "--hash",
            "sha512");
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderr()).contains("root hash: 32 bytes (expected: 64 for sha512)");
  }

  @Test
  void aHashFileOfOtherDataIsSaidInOneLineWithTheCounts() throws Exception {
    byte[] other = bytes.clone();
    new java.util.Random(9).nextBytes(other);
    System.arraycopy(bytes, 0, other, 0, 3 * 1024); // three blocks in common: they still match
    Path otherData = Files.write(dir.resolve("other.img"), other);
    ToolRun r =
        Jverity.run(
            "read", otherData.toString(), hash.toString(), root, "--output", out.toString());
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.CORRUPTION);
    assertThat(r.stderrLines())
        .as("%s", r)
        .containsExactly(
            "jverity: hash file does not belong to this data:"
                + " 597 of 600 data blocks mismatch (or the data was rewritten after it was formatted)");
    assertThat(out).as("-o is written on success only").doesNotExist();

    ToolRun ignoring =
        Jverity.run(
            "read",
            otherData.toString(),
            hash.toString(),
            root,
            "--output",
            out.toString(),
            "--ignore-corruption");
    assertThat(ignoring.exitCode()).as("%s", ignoring).isZero();
    assertThat(ignoring.stderrLines())
        .as("%s", ignoring)
        .containsExactly(
            "jverity: hash file does not belong"
                + " to this data: 597 of 600 data blocks mismatch (or the data was rewritten after it was formatted)"
                + " (ignored)");
  }

  @Test
  void ignoreCorruptionNamesTheFirstHundredBlocksThenCounts() throws Exception {
    for (int b = 0; b < 250; b += 2) { // 125 of 600 blocks: damage, not another image's hash file
      bytes[b * 1024 + 1] ^= 1;
    }
    Files.write(data, bytes);
    ToolRun r = read("--ignore-corruption");
    assertThat(r.exitCode()).as("%s", r).isZero();
    List<String> lines = r.stderrLines();
    assertThat(lines).hasSize(101);
    // Pieces are hashed on every core: which hundred are named depends on who got there first.
    java.util.regex.Pattern named =
        java.util.regex.Pattern.compile(
            "jverity: "
                + java.util.regex.Pattern.quote(data.toString())
                + ": data block (\\d+) \\(position (\\d+)\\) is corrupted \\(ignored\\)");
    java.util.Set<Long> blocks = new java.util.HashSet<>();
    for (String line : lines.subList(0, 100)) {
      var m = named.matcher(line);
      assertThat(m.matches()).as(line).isTrue();
      long block = Long.parseLong(m.group(1));
      assertThat(block % 2 == 0 && block < 250).as(line).isTrue();
      assertThat(Long.parseLong(m.group(2))).isEqualTo(block * 1024);
      blocks.add(block);
    }
    assertThat(blocks).as("each block once").hasSize(100);
    assertThat(lines.getLast()).isEqualTo("jverity: ... and 25 more corrupted blocks (ignored)");
    assertThat(Files.readAllBytes(out)).isEqualTo(bytes);
  }

  @Test
  void aRangeOutsideTheDataIsAParameterError() {
    ToolRun r = read("--offset", "614000", "--length", "1000");
    assertThat(r.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderr()).startsWith("jverity: --length: 1000 (expected: at most ");
  }
}
