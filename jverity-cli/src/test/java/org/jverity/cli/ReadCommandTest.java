package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
    // veritysetup formats, jverity reads: the oracle's tree, 1 KiB blocks so there are three levels.
    ToolRun f = VeritysetupOracle.run("format", data.toString(), hash.toString(),
        "--data-block-size", "1024", "--hash-block-size", "1024", "--salt", "aa");
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
    assertThat(Files.readAllBytes(out)).isEqualTo(Arrays.copyOfRange(bytes, (int) offset, (int) offset + length));
  }

  @ParameterizedTest(name = "--offset {0} --length {1}")
  @CsvSource({"1K, 512K, 1024, 524288", "4KiB, 1k, 4096, 1024", "0, 585KiB, 0, 599040",
      "599040, 15K, 599040, 15360"})
  void sizesTakeSuffixesInPowersOf1024(String offset, String length, int from, int bytesLong)
      throws Exception {
    ToolRun r = read("--offset", offset, "--length", length, "--cache-size", "1M");
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(Arrays.copyOfRange(bytes, from, from + bytesLong));
  }

  @Test
  void readsToTheEndByDefault() throws Exception {
    assertThat(read().exitCode()).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(bytes);
  }

  @Test
  void stopsAtTheCorruptDataBlockAfterWritingEverythingBeforeIt() throws Exception {
    bytes[400 * 1024 + 7] ^= 0x10;
    Files.write(data, bytes);
    ToolRun r = read();
    assertThat(r.exitCode()).isEqualTo(ExitCode.CORRUPTION);
    assertThat(r.stderr()).isEqualTo("jverity: " + data + ": data block 400 is corrupted\n");
    assertThat(Files.readAllBytes(out)).isEqualTo(Arrays.copyOf(bytes, 400 * 1024));
  }

  @Test
  void ignoreCorruptionWritesTheStoredBytesAndSaysWhich() throws Exception {
    bytes[10 * 1024] ^= 1;
    Files.write(data, bytes);
    ToolRun r = read("--ignore-corruption");
    assertThat(r.exitCode()).isZero();
    assertThat(r.stderr()).isEqualTo("jverity: " + data + ": data block 10 is corrupted (ignored)\n");
    assertThat(Files.readAllBytes(out)).isEqualTo(bytes);
  }

  @Test
  void aCorruptHashBlockIsNamedWithItsLevel() throws Exception {
    byte[] tree = Files.readAllBytes(hash);
    tree[tree.length - 1024 + 3] ^= 1; // the last level-0 hash block: it covers data blocks 576..599
    Files.write(hash, tree);
    ToolRun r = read();
    assertThat(r.exitCode()).isEqualTo(ExitCode.CORRUPTION);
    assertThat(r.stderr()).contains("hash block " + (tree.length / 1024 - 1) + " (level 0) is corrupted");
    assertThat(Files.readAllBytes(out)).isEqualTo(Arrays.copyOf(bytes, 576 * 1024));
    assertThat(VeritysetupOracle.run("verify", data.toString(), hash.toString(), root).exitCode()).isNotZero();
  }

  @Test
  void aWrongRootHashReadsNothing() throws Exception {
    root = root.substring(0, 63) + (root.charAt(63) == '0' ? '1' : '0');
    ToolRun r = read();
    assertThat(r.exitCode()).isEqualTo(ExitCode.CORRUPTION);
    assertThat(Files.readAllBytes(out)).isEmpty();
  }

  @Test
  void aRangeOutsideTheDataIsAParameterError() {
    ToolRun r = read("--offset", "614000", "--length", "1000");
    assertThat(r.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderr()).startsWith("jverity: range 614000+1000: outside the data");
  }
}
