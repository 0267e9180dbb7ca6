package org.jverity.hashes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.io.MemoryDevice;
import org.jverity.tree.TreeBuilder;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An embedder that registers these hashes reads a {@code blake2b-512} image veritysetup wrote,
 * through the core's API alone (no command line): the superblock's name resolves, the tree the
 * core builds has veritysetup's root hash, and the reader verifies every block against it.
 */
class EmbedderTest {
  private static final int BLOCK = 4096;
  private static final int BLOCKS = 259; // 5 hash blocks of 64 digests, then the top: two levels

  @Test
  void aBlake2bImageVeritysetupWroteOpensAndVerifiesThroughTheCoreAlone(@TempDir Path dir) throws Exception {
    byte[] bytes = new byte[BLOCKS * BLOCK];
    new SplittableRandom(15).nextBytes(bytes);
    Path dataFile = Files.write(dir.resolve("data.img"), bytes);
    Path hashFile = dir.resolve("data.hash");
    byte[] root = HexFormat.of().parseHex(veritysetupFormat(dir, dataFile, hashFile, "blake2b-512"));

    VeritysetupHashes.register();
    try (BlockDevice data = BlockDevices.openRead(dataFile);
         BlockDevice hash = BlockDevices.openRead(hashFile)) {
      ByteBuffer sb = ByteBuffer.allocate(VeritySuperblock.SIZE);
      hash.readFully(0, sb);
      VerityParams params = VeritySuperblock.decode(hash.description(), sb.array()).toParams(0);
      assertThat(params.hashAlgorithm().kernelName()).isEqualTo("blake2b-512");
      assertThat(params.hashAlgorithm().digestSize()).isEqualTo(64);

      MemoryDevice built = new MemoryDevice("built");
      assertThat(TreeBuilder.of(params).build(new MemoryDevice("data", bytes), built)).isEqualTo(root);

      try (VerifiedReader reader = VerifiedReader.open(params, data, hash, root, new HashBlockCache(1 << 20),
          ReaderOptions.DEFAULTS)) {
        assertThat(reader.read(0, bytes.length)).isEqualTo(bytes);
      }

      byte[] tampered = bytes.clone();
      tampered[200 * BLOCK + 7] ^= 1;
      try (VerifiedReader reader = VerifiedReader.open(params, new MemoryDevice("tampered", tampered), hash,
          root, new HashBlockCache(1 << 20), ReaderOptions.DEFAULTS)) {
        assertThat(reader.read(199 * BLOCK, BLOCK)).isEqualTo(Arrays.copyOfRange(bytes, 199 * BLOCK, 200 * BLOCK));
        assertThatThrownBy(() -> reader.read(200 * BLOCK, BLOCK)).isInstanceOf(CorruptBlockException.class);
      }
    }
  }

  /**
   * Runs {@code veritysetup format} and returns the root hash it prints. Its output goes to files,
   * so neither stream can fill and stall it; a missing veritysetup fails, never skips.
   */
  private static String veritysetupFormat(Path dir, Path data, Path hash, String algorithm) throws Exception {
    List<String> command = new ArrayList<>(List.of(veritysetup(), "format", "--hash", algorithm,
        data.toString(), hash.toString()));
    Path out = dir.resolve("veritysetup.out");
    Path err = dir.resolve("veritysetup.err");
    Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("veritysetup format did not finish in 60 s");
    }
    String printed = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("veritysetup %s: %s", command, Files.readString(err)).isZero();
    return printed.lines().filter(l -> l.startsWith("Root hash:")).map(l -> l.substring(10).strip())
        .findFirst().orElseThrow(() -> new AssertionError("no root hash in: " + printed));
  }

  /** veritysetup from PATH, else /usr/sbin or /sbin (where Debian puts it, off a user's PATH). */
  private static String veritysetup() {
    List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
    dirs.addAll(List.of("/usr/sbin", "/sbin"));
    for (String d : dirs) {
      Path candidate = Path.of(d, "veritysetup");
      if (!d.isEmpty() && Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    throw new AssertionError("veritysetup not found (PATH, /usr/sbin, /sbin): this test compares with it and"
        + " does not skip. Debian: apt-get install cryptsetup-bin");
  }
}
