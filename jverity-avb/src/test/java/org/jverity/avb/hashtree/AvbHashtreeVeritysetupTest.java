package org.jverity.avb.hashtree;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.jverity.hash.HashAlgorithm;
import org.jverity.testkit.ToolResult;

/**
 * Trees and FEC byte-identical to veritysetup's single-device layout, accepted by {@code
 * veritysetup verify}, and corruption judged alike by it and by {@link AvbHashtree#check}.
 */
class AvbHashtreeVeritysetupTest {
  private static final int[] ROOTS = {2, 7, 24};

  @TempDir Path dir;

  /** sha1/sha256/sha512 × 4096/1024/512 × 1..1000 blocks, the FEC roots taken in turn. */
  static Stream<Arguments> layouts() {
    List<Arguments> all = new ArrayList<>();
    int i = 0;
    for (HashAlgorithm alg :
        List.of(HashAlgorithm.SHA1, HashAlgorithm.SHA256, HashAlgorithm.SHA512)) {
      for (int bs : new int[] {4096, 1024, 512}) {
        for (int blocks : new int[] {1, 2, 63, 64, 65, 129, 1000}) {
          all.add(Arguments.of(alg, bs, blocks, ROOTS[i++ % ROOTS.length]));
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} block {1} × {2}, FEC roots {3}")
  @MethodSource("layouts")
  void sameBytesAsVeritysetupAndVerifies(HashAlgorithm alg, int bs, int blocks, int roots)
      throws IOException {
    byte[] data = TestImages.random(blocks * bs, 31L * blocks + bs + roots);
    byte[] salt = TestImages.random(alg.digestSize(), blocks); // avbtool's default salt length
    AvbTreeGeometry g = AvbTreeGeometry.of(data.length, bs, alg, roots);
    Path ours = TestImages.write(dir, "ours", data);
    byte[] root = TestImages.build(ours, g, salt);

    // The AVB layout has the tree's padding to 4096 on disk; veritysetup reads the FEC message
    // area up to the FEC offset and fails on a file that ends before it.
    Path theirs = TestImages.write(dir, "theirs", Arrays.copyOf(data, (int) g.treeEnd()));
    VeritysetupLayout vs = new VeritysetupLayout(g, salt);
    assertThat(vs.format(theirs)).isEqualTo(root);
    byte[] a = Files.readAllBytes(ours);
    byte[] b = Files.readAllBytes(theirs);
    assertThat(a.length).isEqualTo(g.end());
    // veritysetup's file ends with the parity; ours is padded to 4096 with zeros after it
    assertThat(Arrays.copyOf(a, b.length)).isEqualTo(b);
    assertThat(Arrays.copyOfRange(a, b.length, a.length)).isEqualTo(new byte[a.length - b.length]);
    assertThat(b.length).isEqualTo(g.fecOffset() + g.fecSize());

    ToolResult verified = vs.verify(ours, root);
    assertThat(verified.exit()).as("%s", verified).isZero();
    assertThat(TestImages.check(ours, g, salt, root).ok()).isTrue();
  }

  @ParameterizedTest(name = "{0} block {1} × {2}, FEC roots {3}")
  @MethodSource("corruptible")
  void oneCorruptByteIsRepairableForBoth(HashAlgorithm alg, int bs, int blocks, int roots, long at)
      throws IOException {
    byte[] salt = TestImages.random(20, 7);
    AvbTreeGeometry g = AvbTreeGeometry.of((long) blocks * bs, bs, alg, roots);
    Path image = TestImages.write(dir, "image", TestImages.random(blocks * bs, blocks));
    byte[] root = TestImages.build(image, g, salt);
    long offset = at >= 0 ? at : g.imageSize() - at - 1; // negative: into the tree
    TestImages.flipByte(image, offset);

    ToolResult vs = new VeritysetupLayout(g, salt).verify(image, root);
    assertThat(vs.out() + vs.stderr()).as("%s", vs).contains("Found 1 repairable errors");

    AvbTreeReport r = TestImages.check(image, g, salt, root);
    assertThat(r.ok()).isFalse();
    assertThat(r.repairableBlocks()).as("%s", r).isEqualTo(1);
    assertThat(r.unrepairableBlocks()).isZero();
    assertThat(r.repairable()).isTrue();
    if (blocks == 1) {
      assertThat(r.corruptDataBlocks()).isEqualTo(1);
      assertThat(r.firstProblem())
          .isEqualTo(
              "data block 0 does not hash to the root digest (the image is one block: no tree);"
                  + " FEC can repair it");
    } else if (at >= 0) {
      assertThat(r.corruptDataBlocks()).isEqualTo(1);
      assertThat(r.firstProblem())
          .isEqualTo("data block " + offset / bs + " is corrupted; FEC can repair it");
    } else {
      assertThat(r.corruptHashBlocks()).isEqualTo(1);
      assertThat(r.firstProblem()).startsWith("hash block ").endsWith("; FEC can repair it");
    }
  }

  static Stream<Arguments> corruptible() {
    return Stream.of(
        Arguments.of(HashAlgorithm.SHA256, 4096, 129, 2, 70L * 4096 + 123),
        Arguments.of(HashAlgorithm.SHA1, 1024, 65, 7, 0L),
        Arguments.of(HashAlgorithm.SHA512, 512, 1000, 24, 999L * 512 + 511),
        Arguments.of(HashAlgorithm.SHA256, 4096, 1, 2, 17L), // no tree: the root itself
        Arguments.of(HashAlgorithm.SHA256, 4096, 129, 2, -5L)); // a byte of the tree
  }

  @Test
  void damageBeyondFecIsUnrepairableForBoth() throws IOException {
    // 129 data blocks of 1 KiB and 8 of tree and padding make one round: 8 blocks damaged at the
    // same byte column
    // are 8 errors in one codeword of 7 roots, beyond RS even as erasures (7 at most). (With 2
    // roots,
    // veritysetup "repairs" 3 errors into another codeword and says so: RS(255, 253) decodes
    // almost every word to some codeword; the tree rejects that, veritysetup verify does not.)
    int bs = 1024;
    byte[] salt = TestImages.random(32, 9);
    AvbTreeGeometry g = AvbTreeGeometry.of(129L * bs, bs, HashAlgorithm.SHA256, 7);
    Path image = TestImages.write(dir, "image", TestImages.random(129 * bs, 3));
    byte[] root = TestImages.build(image, g, salt);
    for (int i = 0; i < 8; i++) {
      TestImages.flipByte(image, (long) (3 + 4 * i) * bs + 100);
    }
    ToolResult vs = new VeritysetupLayout(g, salt).verify(image, root);
    assertThat(vs.exit()).as("%s", vs).isNotZero();

    AvbTreeReport r = TestImages.check(image, g, salt, root);
    assertThat(r.corruptDataBlocks()).isEqualTo(8);
    assertThat(r.unrepairableBlocks()).as("%s", r).isPositive();
    assertThat(r.repairable()).isFalse();
    assertThat(r.firstProblem()).startsWith("data block 3 is corrupted; FEC cannot repair ");
  }
}
