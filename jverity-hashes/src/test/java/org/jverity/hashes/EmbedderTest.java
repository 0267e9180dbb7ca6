package org.jverity.hashes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.io.MemoryDevice;
import org.jverity.testkit.Veritysetup;
import org.jverity.tree.TreeBuilder;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * An embedder that registers these hashes reads a {@code blake2b-512} image veritysetup wrote,
 * through the core's API alone (no command line): the superblock's name resolves, the tree the core
 * builds has veritysetup's root hash, and the reader verifies every block against it.
 */
class EmbedderTest {
  private static final int BLOCK = 4096;
  private static final int BLOCKS = 259; // 5 hash blocks of 64 digests, then the top: two levels

  @Test
  void aBlake2bImageVeritysetupWroteOpensAndVerifiesThroughTheCoreAlone(@TempDir Path dir)
      throws Exception {
    byte[] bytes = new byte[BLOCKS * BLOCK];
    new SplittableRandom(15).nextBytes(bytes);
    Path dataFile = Files.write(dir.resolve("data.img"), bytes);
    Path hashFile = dir.resolve("data.hash");
    byte[] root =
        HexFormat.of().parseHex(veritysetupFormat(dir, dataFile, hashFile, "blake2b-512"));

    VeritysetupHashes.register();
    try (BlockDevice data = BlockDevices.openRead(dataFile);
        BlockDevice hash = BlockDevices.openRead(hashFile)) {
      ByteBuffer sb = ByteBuffer.allocate(VeritySuperblock.SIZE);
      hash.readFully(0, sb);
      VerityParams params = VeritySuperblock.decode(hash.description(), sb.array()).toParams(0);
      assertThat(params.hashAlgorithm().kernelName()).isEqualTo("blake2b-512");
      assertThat(params.hashAlgorithm().digestSize()).isEqualTo(64);

      MemoryDevice built = new MemoryDevice("built");
      assertThat(TreeBuilder.of(params).build(new MemoryDevice("data", bytes), built))
          .isEqualTo(root);

      try (VerifiedReader reader =
          VerifiedReader.open(
              params, data, hash, root, new HashBlockCache(1 << 20), ReaderOptions.DEFAULTS)) {
        assertThat(reader.read(0, bytes.length)).isEqualTo(bytes);
      }

      byte[] tampered = bytes.clone();
      tampered[200 * BLOCK + 7] ^= 1;
      try (VerifiedReader reader =
          VerifiedReader.open(
              params,
              new MemoryDevice("tampered", tampered),
              hash,
              root,
              new HashBlockCache(1 << 20),
              ReaderOptions.DEFAULTS)) {
        assertThat(reader.read(199 * BLOCK, BLOCK))
            .isEqualTo(Arrays.copyOfRange(bytes, 199 * BLOCK, 200 * BLOCK));
        assertThatThrownBy(() -> reader.read(200 * BLOCK, BLOCK))
            .isInstanceOf(CorruptBlockException.class);
      }
    }
  }

  /**
   * Runs {@code veritysetup format} (a missing veritysetup fails, never skips) and returns its root
   * hash.
   */
  private static String veritysetupFormat(Path dir, Path data, Path hash, String algorithm) {
    String printed =
        Veritysetup.run("format", "--hash", algorithm, data.toString(), hash.toString()).ok().out();
    return printed
        .lines()
        .filter(l -> l.startsWith("Root hash:"))
        .map(l -> l.substring(10).strip())
        .findFirst()
        .orElseThrow(() -> new AssertionError("no root hash in: " + printed));
  }
}
