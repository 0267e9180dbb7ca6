package org.jverity.fsverity;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.jverity.hash.HashAlgorithm;
import org.jverity.tree.MerkleLayout;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.ReaderOptions;

/**
 * Whatever the size, parameters, range read and damage (none, a file byte, a tree byte), a read of
 * a {@link VerifiedFile} returns the original bytes or throws: never other bytes. It throws exactly
 * when the range covers a block the damage is above, naming the first such block, and the bytes
 * before it are the original ones; damage that the root hash itself covers is refused at open.
 */
class VerifiedFileProperties {

  enum Damage {
    NONE,
    FILE,
    TREE
  }

  @Property(tries = 60)
  void readsReturnTheOriginalBytesOrThrowNeverOtherBytes(
      @ForAll @IntRange(min = 0, max = 300_000) int size,
      @ForAll boolean sha512,
      @ForAll boolean smallBlocks,
      @ForAll boolean salted,
      @ForAll Damage damage,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE - 1) int where,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE - 1) int from,
      @ForAll @IntRange(min = 0, max = 300_000) int length,
      @ForAll long seed)
      throws Exception {
    HashAlgorithm alg = sha512 ? HashAlgorithm.SHA512 : HashAlgorithm.SHA256;
    int bs = smallBlocks ? 1024 : 4096;
    String salt = salted ? "0123456789abcdef" : "";
    Path dir = Files.createTempDirectory("verified-file");
    try {
      var m = FsverityTool.make(dir, "f", size, seed, alg.kernelName(), bs, salt);
      MerkleLayout layout = MerkleLayout.fsVerity(alg, bs, size);
      long treeBytes = Files.size(m.tree());
      // The data blocks the damage is above; null when the damage changes the root hash itself.
      long firstBad = Long.MAX_VALUE;
      long lastBad = -1;
      boolean atOpen = false;
      if (damage == Damage.FILE && size > 0) {
        long at = where % size;
        FsverityTool.flip(m.file(), at);
        firstBad = lastBad = at / bs;
        atOpen = layout.levels() == 0; // a one-block file's root is its block's hash
      } else if (damage == Damage.TREE && treeBytes > 0) {
        long at = where % treeBytes;
        FsverityTool.flip(m.tree(), at);
        long hashBlock = at / bs;
        int level = layout.levelOf(hashBlock);
        atOpen = level == layout.levels() - 1; // the top block is what the root hashes
        long span =
            1L << (layout.hashesPerBlockBits() * (level + 1)); // data blocks under one block
        firstBad = (hashBlock - layout.levelStart(level)) * span;
        lastBad = Math.min(layout.dataBlocks(), firstBad + span) - 1;
      }
      VerifiedFile f;
      try {
        f =
            VerifiedFile.open(
                m.file(),
                m.tree(),
                m.digest(),
                VerifiedFile.Parameters.DEFAULTS
                    .withBlockSize(bs)
                    .withSalt(org.jverity.format.Hex.parse("salt", salt)),
                ReaderOptions.DEFAULTS);
      } catch (FileDigestMismatchException e) {
        assertThat(atOpen).as("refused at open: %s", e.getMessage()).isTrue();
        return;
      }
      assertThat(atOpen).as("damage the root covers was not refused at open").isFalse();
      try (f) {
        int off = size == 0 ? 0 : from % (size + 1);
        int n = Math.min(length, size - off);
        byte[] dst = new byte[n];
        long first = off / bs;
        long last = n == 0 ? first - 1 : (off + n - 1L) / bs;
        boolean covers = n > 0 && first <= lastBad && last >= firstBad;
        try {
          f.read(off, dst, 0, n);
          assertThat(covers).as("a read over a damaged block returned").isFalse();
          assertThat(dst).isEqualTo(Arrays.copyOfRange(m.bytes(), off, off + n));
        } catch (CorruptBlockException e) {
          assertThat(covers).as("an undamaged range failed: %s", e.getMessage()).isTrue();
          long bad = Math.max(first, firstBad);
          assertThat(e.dataBlock()).isEqualTo(bad);
          int good = (int) Math.max(0, bad * bs - off);
          assertThat(Arrays.copyOf(dst, good))
              .isEqualTo(Arrays.copyOfRange(m.bytes(), off, off + good));
        }
      }
    } finally {
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      } catch (IOException ignored) {
        // a temporary directory left behind is harmless
      }
    }
  }
}
