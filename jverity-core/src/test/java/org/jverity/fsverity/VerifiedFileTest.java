package org.jverity.fsverity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.format.HashNames;
import org.jverity.format.Hex;
import org.jverity.format.VerityParameterException;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.DeviceTooSmallException;
import org.jverity.tree.Area;
import org.jverity.tree.MerkleLayout;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.ReaderOptions;

/**
 * {@link VerifiedFile} over files, trees and digests made by fsverity-utils' {@code fsverity digest
 * --out-merkle-tree}: the file reads back exactly, damage is reported by block, and a digest that
 * is not the file's is refused before anything is read.
 */
class VerifiedFileTest {
  @TempDir Path dir;

  private static VerifiedFile.Parameters params(int blockSize, String saltHex) {
    return VerifiedFile.Parameters.DEFAULTS
        .withBlockSize(blockSize)
        .withSalt(Hex.parse("salt", saltHex));
  }

  private static VerifiedFile open(FsverityTool.Made m, int blockSize, String saltHex)
      throws Exception {
    return VerifiedFile.open(
        m.file(), m.tree(), m.digest(), params(blockSize, saltHex), ReaderOptions.DEFAULTS);
  }

  @ParameterizedTest(name = "{0} bytes, {1}, {2}-byte blocks, salt ''{3}''")
  @CsvSource({
    "0, sha256, 4096, ''",
    "1, sha256, 4096, ''",
    "4095, sha256, 4096, ''",
    "4096, sha256, 4096, ''",
    "4097, sha256, 4096, ''",
    "5242880, sha256, 4096, ''",
    "5242881, sha256, 1024, ''",
    "0, sha512, 1024, ab",
    "1, sha512, 4096, 61626364",
    "4095, sha512, 1024, ''",
    "4096, sha512, 4096, 00",
    "4097, sha512, 4096, ''",
    "5242880, sha512, 1024, 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
    "1024, sha256, 1024, ''",
    "1025, sha256, 1024, 0102",
    "131072, sha256, 1024, ''",
    "131073, sha256, 1024, ''",
  })
  void readsTheFileExactlyWithTheDigestFsverityPrinted(
      int size, String alg, int blockSize, String salt) throws Exception {
    var m = FsverityTool.make(dir, "f", size, size, alg, blockSize, salt);
    try (VerifiedFile f = open(m, blockSize, salt)) {
      assertThat(f.size()).isEqualTo(size);
      assertThat(f.digest()).isEqualTo(m.digest());
      assertThat(f.read(0, size)).isEqualTo(m.bytes());
      if (size > 0) {
        int from = size / 3;
        assertThat(f.read(from, size - from)).isEqualTo(Arrays.copyOfRange(m.bytes(), from, size));
      }
      byte[] desc = Files.readAllBytes(m.descriptor()); // fsverity's own descriptor holds our root
      assertThat(Arrays.copyOfRange(desc, 16, 16 + f.rootHash().length)).isEqualTo(f.rootHash());
      assertThat(
              new FsVerityDescriptor(
                      new FsVerityParams(
                          HashNames.fromName(alg), blockSize, Hex.parse("salt", salt)),
                      size,
                      f.rootHash())
                  .encode())
          .isEqualTo(desc);
    }
  }

  @ParameterizedTest(name = "{0} bytes, {1}-byte blocks, byte {2} flipped")
  @CsvSource({
    "4097, 4096, 4096",
    "5242880, 4096, 3000000",
    "5242880, 1024, 5242879",
    "5242881, 1024, 5242880",
    "100000, 1024, 0"
  })
  void aFlippedFileByteFailsItsBlockAndEarlierBytesVerify(int size, int blockSize, int at)
      throws Exception {
    var m = FsverityTool.make(dir, "f", size, 7, "sha256", blockSize, "");
    FsverityTool.flip(m.file(), at);
    long bad = at / blockSize;
    try (VerifiedFile f = open(m, blockSize, "")) {
      byte[] dst = new byte[size];
      assertThatThrownBy(() -> f.read(0, dst, 0, size))
          .isInstanceOfSatisfying(
              CorruptBlockException.class,
              e -> {
                assertThat(e.area()).isEqualTo(Area.DATA);
                assertThat(e.dataBlock()).isEqualTo(bad);
                assertThat(e.getMessage()).contains("data block " + bad).doesNotContain("\n");
              });
      int good = (int) (bad * blockSize);
      assertThat(Arrays.copyOf(dst, good))
          .isEqualTo(Arrays.copyOf(m.bytes(), good)); // verified bytes kept
      assertThat(f.read(0, good)).isEqualTo(Arrays.copyOf(m.bytes(), good));
      int after = (int) Math.min(size, good + blockSize);
      assertThat(f.read(after, size - after)).isEqualTo(Arrays.copyOfRange(m.bytes(), after, size));
    }
  }

  /** 5 MiB in 1 KiB sha256 blocks: 5120 data blocks, tree levels of 160, 5 and 1 blocks. */
  @ParameterizedTest(name = "level {0}, hash block {1} of the level, byte {2}")
  @CsvSource({"0, 0, 0", "0, 77, 1000", "0, 159, 1023", "1, 0, 5", "1, 4, 1023", "1, 2, 512"})
  void aFlippedTreeByteFailsTheBlocksUnderItOnly(int level, int index, int byteInBlock)
      throws Exception {
    int bs = 1024;
    int size = 5 << 20;
    var m = FsverityTool.make(dir, "f", size, 11, "sha256", bs, "aa");
    MerkleLayout layout = MerkleLayout.fsVerity(HashAlgorithm.SHA256, bs, size);
    assertThat(layout.levels()).isEqualTo(3);
    FsverityTool.flip(m.tree(), (layout.levelStart(level) + index) * bs + byteInBlock);
    long span =
        1L << (5 * (level + 1)); // data blocks under one hash block of this level: 32^(level+1)
    long first = index * span;
    long last = Math.min(layout.dataBlocks(), first + span) - 1;
    try (VerifiedFile f = open(m, bs, "aa")) {
      for (long block : new long[] {first, (first + last) / 2, last}) {
        assertThatThrownBy(() -> f.read(block * bs, bs))
            .isInstanceOfSatisfying(
                CorruptBlockException.class,
                e -> {
                  assertThat(e.area()).isEqualTo(Area.HASH);
                  assertThat(e.level()).isEqualTo(level);
                  assertThat(e.dataBlock()).isEqualTo(block);
                });
      }
      for (long block : new long[] {first - 1, last + 1}) {
        if (block >= 0 && block < layout.dataBlocks()) {
          int from = (int) (block * bs);
          assertThat(f.read(from, bs)).isEqualTo(Arrays.copyOfRange(m.bytes(), from, from + bs));
        }
      }
    }
  }

  @Test
  void aFlippedTopTreeBlockIsADigestMismatchAtOpen() throws Exception {
    var m = FsverityTool.make(dir, "f", 5 << 20, 3, "sha512", 4096, "");
    FsverityTool.flip(m.tree(), 100); // the root level comes first
    assertThatThrownBy(() -> open(m, 4096, "")).isInstanceOf(FileDigestMismatchException.class);
  }

  @Test
  void aOneBlockFileWithAFlippedByteIsADigestMismatchAtOpen() throws Exception {
    var m = FsverityTool.make(dir, "f", 4095, 3, "sha256", 4096, "");
    FsverityTool.flip(m.file(), 4094); // its root is the hash of its only block
    assertThatThrownBy(() -> open(m, 4096, "")).isInstanceOf(FileDigestMismatchException.class);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "another digest",
    "another salt",
    "another block size",
    "a file grown by a byte",
    "another file's tree"
  })
  void aDigestThatIsNotTheFilesIsRefusedAtOpen(String what) throws Exception {
    var m = FsverityTool.make(dir, "f", 100_000, 5, "sha256", 4096, "abcd");
    var other = FsverityTool.make(dir, "g", 100_000, 6, "sha256", 4096, "abcd");
    String digest = m.digest();
    VerifiedFile.Parameters p = params(4096, "abcd");
    Path tree = m.tree();
    switch (what) {
      case "another digest" -> digest = other.digest();
      case "another salt" -> p = p.withSalt(new byte[] {1});
      case "another block size" -> p = p.withBlockSize(2048); // a tree of one 2 KiB block: fits
      case "a file grown by a byte" ->
          Files.write(m.file(), new byte[1], java.nio.file.StandardOpenOption.APPEND);
      case "another file's tree" -> tree = other.tree();
      default -> throw new AssertionError(what);
    }
    String d = digest;
    VerifiedFile.Parameters q = p;
    Path t = tree;
    assertThatThrownBy(() -> VerifiedFile.open(m.file(), t, d, q, ReaderOptions.DEFAULTS))
        .isInstanceOfSatisfying(
            FileDigestMismatchException.class,
            e -> {
              assertThat(e.expected()).isEqualTo(d);
              assertThat(e.actual()).startsWith("sha256:").isNotEqualTo(d);
              assertThat(e.getMessage()).contains(m.file().toString()).doesNotContain("\n");
            });
  }

  @Test
  void aBlockSizeWhoseTreeIsLargerThanTheTreeGivenIsATooShortTree() throws Exception {
    var m = FsverityTool.make(dir, "f", 100_000, 5, "sha256", 4096, "");
    assertThatThrownBy(() -> open(m, 1024, ""))
        .isInstanceOf(DeviceTooSmallException.class)
        .hasMessageContaining("has 4096 bytes, needs 5120");
  }

  @Test
  void aTruncatedTreeIsTooShort() throws Exception {
    var m = FsverityTool.make(dir, "f", 1 << 20, 5, "sha256", 4096, "");
    byte[] tree = Files.readAllBytes(m.tree());
    Files.write(m.tree(), Arrays.copyOf(tree, tree.length - 1));
    assertThatThrownBy(() -> open(m, 4096, ""))
        .isInstanceOf(DeviceTooSmallException.class)
        .hasMessageContaining(m.tree().toString());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "3d248ca542a24fc62d1c43b916eae5016878e2533c88238480b26128a1f1af95|sha256:HEX or sha512:HEX",
        "sha1:0011|expected: sha256 or sha512",
        "sha256:00zz|not a hex string",
        "sha256:0011|2 bytes (expected: 32"
      })
  void malformedDigestsAreParameterErrors(String digest, String message) throws Exception {
    var m = FsverityTool.make(dir, "f", 10, 5, "sha256", 4096, "");
    assertThatThrownBy(() -> VerifiedFile.open(m.file(), m.tree(), digest))
        .isInstanceOf(VerityParameterException.class)
        .hasMessageContaining(message);
  }

  @ParameterizedTest(name = "{0} bytes, {1}, {2}-byte blocks, salt ''{3}''")
  @CsvSource({
    "0, sha256, 4096, ''",
    "1, sha512, 1024, ab",
    "4097, sha256, 4096, ''",
    "5242881, sha256, 1024, 00"
  })
  void describeGivesTheDescriptorFsverityWrote(int size, String alg, int blockSize, String salt)
      throws Exception {
    var m = FsverityTool.make(dir, "f", size, size, alg, blockSize, salt);
    FsVerityDescriptor claimed =
        VerifiedFile.describe(m.file(), m.tree(), HashNames.fromName(alg), params(blockSize, salt));
    assertThat(claimed.encode()).isEqualTo(Files.readAllBytes(m.descriptor()));
    assertThat(claimed.formattedDigest()).isEqualTo(m.digest());
  }

  @Test
  void describeTrustsNothingAFlippedTopTreeBlockGivesAnotherDigest() throws Exception {
    var m = FsverityTool.make(dir, "f", 100_000, 5, "sha256", 4096, "");
    FsverityTool.flip(m.tree(), 10); // 25 data blocks: the tree is one block, the top
    FsVerityDescriptor claimed =
        VerifiedFile.describe(m.file(), m.tree(), HashAlgorithm.SHA256, params(4096, ""));
    assertThat(claimed.formattedDigest()).isNotEqualTo(m.digest());
    assertThatThrownBy(
            () -> VerifiedFile.describe(m.file(), m.tree(), HashAlgorithm.SHA1, params(4096, "")))
        .isInstanceOf(VerityParameterException.class)
        .hasMessageContaining("expected: sha256 or sha512");
  }

  @Test
  void saltsLongerThanTheDescriptorsFieldAreRefused() {
    assertThatThrownBy(() -> VerifiedFile.Parameters.DEFAULTS.withSalt(new byte[33]))
        .isInstanceOf(VerityParameterException.class)
        .hasMessage("salt: 33 bytes (expected: at most 32)");
  }
}
