package org.jverity.avb.hashtree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.format.Hex;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.DeviceTooSmallException;
import org.jverity.io.FileDevice;

/** Empty, one-block and unaligned images, progress, wrong roots, and zero_hashtree. */
class AvbHashtreeEdgeTest {
  private static final byte[] SALT = Hex.parse("salt", "d00df00d");

  @TempDir Path dir;

  private static byte[] digest(HashAlgorithm alg, byte[]... parts) {
    MessageDigest d = alg.newDigest();
    for (byte[] p : parts) {
      d.update(p);
    }
    return d.digest();
  }

  @Test
  void emptyImageRootIsTheSaltsDigestAndNothingIsWritten() throws IOException {
    Path image = TestImages.write(dir, "image", new byte[0]);
    AvbTreeGeometry g = AvbTreeGeometry.of(0, 4096, HashAlgorithm.SHA256, 2);
    byte[] root = TestImages.build(image, g, SALT);
    assertThat(root).isEqualTo(digest(HashAlgorithm.SHA256, SALT));
    assertThat(Files.size(image)).isZero();
    assertThat(TestImages.check(image, g, SALT, root).ok()).isTrue();
    AvbTreeReport wrong = TestImages.check(image, g, SALT, new byte[32]);
    assertThat(wrong.ok()).isFalse();
    assertThat(wrong.firstProblem()).isEqualTo("empty image: the root digest is not H(salt)");
  }

  @Test
  void oneBlockRootIsTheSaltedDigestOfTheBlock() throws IOException {
    byte[] block = TestImages.random(4096, 1);
    Path image = TestImages.write(dir, "image", block);
    AvbTreeGeometry g = AvbTreeGeometry.of(4096, 4096, HashAlgorithm.SHA256, 0);
    byte[] root = TestImages.build(image, g, SALT);
    assertThat(root).isEqualTo(digest(HashAlgorithm.SHA256, SALT, block));
    assertThat(Files.size(image)).isEqualTo(4096); // no tree, no FEC
  }

  @Test
  void callerPadsAnUnalignedImage() throws IOException {
    // add_hashtree_footer pads a 5000-byte input with zeros to the block size (avbtool: 4096)
    // before the geometry is computed; the geometry refuses an unpadded size.
    byte[] input = TestImages.random(5000, 2);
    assertThatThrownBy(() -> AvbTreeGeometry.of(input.length, 4096, HashAlgorithm.SHA1, 2))
        .hasMessageContaining("the caller pads the image");
    byte[] padded = Arrays.copyOf(input, 8192);
    Path image = TestImages.write(dir, "image", padded);
    AvbTreeGeometry g = AvbTreeGeometry.of(padded.length, 4096, HashAlgorithm.SHA1, 2);
    byte[] root = TestImages.build(image, g, SALT);
    byte[] leaf0 = digest(HashAlgorithm.SHA1, SALT, Arrays.copyOfRange(padded, 0, 4096));
    byte[] leaf1 = digest(HashAlgorithm.SHA1, SALT, Arrays.copyOfRange(padded, 4096, 8192));
    byte[] level0 = new byte[4096]; // digests in 32-byte slots
    System.arraycopy(leaf0, 0, level0, 0, 20);
    System.arraycopy(leaf1, 0, level0, 32, 20);
    assertThat(TestImages.slice(image, 8192, 4096)).isEqualTo(level0);
    assertThat(root).isEqualTo(digest(HashAlgorithm.SHA1, SALT, level0));
  }

  @Test
  void imageShorterThanItsGeometryIsRefused() throws IOException {
    Path image = TestImages.write(dir, "image", new byte[4096]);
    AvbTreeGeometry g = AvbTreeGeometry.of(8192, 4096, HashAlgorithm.SHA256, 0);
    assertThatThrownBy(() -> TestImages.build(image, g, SALT))
        .isInstanceOf(DeviceTooSmallException.class);
  }

  @Test
  void staleBytesInThePaddingAreZeroed() throws IOException {
    // block 1024: the tree (1024 bytes) is padded to 4096, the parity (2 × 1024) too
    byte[] data = TestImages.random(2048, 3);
    AvbTreeGeometry g = AvbTreeGeometry.of(2048, 1024, HashAlgorithm.SHA256, 2);
    byte[] junk = new byte[(int) g.end()];
    Arrays.fill(junk, (byte) 0xee);
    System.arraycopy(data, 0, junk, 0, data.length);
    Path image = TestImages.write(dir, "image", junk);
    TestImages.build(image, g, SALT);
    assertThat(TestImages.slice(image, 2048 + 1024, 3072)).isEqualTo(new byte[3072]);
    long parityEnd = g.fecOffset() + g.fecSize();
    assertThat(TestImages.slice(image, parityEnd, g.end() - parityEnd))
        .isEqualTo(new byte[(int) (g.end() - parityEnd)]);
  }

  @Test
  void progressAddsUpToTheWork() throws IOException {
    Path image = TestImages.write(dir, "image", TestImages.random(300 * 4096, 4));
    AvbTreeGeometry g = AvbTreeGeometry.of(300 * 4096, 4096, HashAlgorithm.SHA256, 2);
    AtomicLong done = new AtomicLong();
    try (FileDevice dev = FileDevice.openChannel(image, true)) {
      AvbHashtree.build(dev, g, SALT, 0, done::addAndGet);
    }
    assertThat(done.get()).isEqualTo(AvbHashtree.workBytes(g)).isGreaterThan(300 * 4096);
  }

  @Test
  void wrongRootIsNotBlamedOnTheBlocks() throws IOException {
    Path image = TestImages.write(dir, "image", TestImages.random(100 * 4096, 5));
    AvbTreeGeometry g = AvbTreeGeometry.of(100 * 4096, 4096, HashAlgorithm.SHA256, 2);
    byte[] root = TestImages.build(image, g, SALT);
    byte[] wrong = root.clone();
    wrong[0] ^= 1;
    AvbTreeReport r = TestImages.check(image, g, SALT, wrong);
    assertThat(r.rootMatches()).isFalse();
    assertThat(r.corruptDataBlocks()).isZero();
    assertThat(r.corruptHashBlocks()).isZero();
    assertThat(r.repairableBlocks()).isZero();
    assertThat(r.firstProblem())
        .isEqualTo(
            "root digest mismatch: the tree hashes to "
                + Hex.format(root)
                + " (expected: "
                + Hex.format(wrong)
                + "); FEC cannot repair it");
  }

  @Test
  void corruptionWithoutFecIsReportedUnrepairable() throws IOException {
    Path image = TestImages.write(dir, "image", TestImages.random(100 * 4096, 6));
    AvbTreeGeometry g = AvbTreeGeometry.of(100 * 4096, 4096, HashAlgorithm.SHA1, 0);
    byte[] root = TestImages.build(image, g, SALT);
    TestImages.flipByte(image, 42 * 4096 + 7);
    AvbTreeReport r = TestImages.check(image, g, SALT, root);
    assertThat(r).isEqualTo(new AvbTreeReport(true, 1, 0, 0, 1, "data block 42 is corrupted"));
  }

  @Test
  void staleParityIsFoundWhenTheTreeVerifies() throws IOException {
    Path image = TestImages.write(dir, "image", TestImages.random(300 * 4096, 9));
    AvbTreeGeometry g = AvbTreeGeometry.of(300 * 4096, 4096, HashAlgorithm.SHA256, 2);
    byte[] root = TestImages.build(image, g, SALT);
    assertThat(TestImages.check(image, g, SALT, root))
        .isEqualTo(new AvbTreeReport(true, 0, 0, 0, 0, "", 0));
    long at = g.fecOffset() + 3 * 4096 + 10; // parity block 3 of 4
    TestImages.flipByte(image, at);
    AvbTreeReport r = TestImages.check(image, g, SALT, root);
    assertThat(r.treeOk()).isTrue();
    assertThat(r.ok()).isFalse();
    assertThat(r.staleParityBlocks()).isEqualTo(1);
    assertThat(r.repairable()).isFalse();
    assertThat(r.firstProblem())
        .isEqualTo(
            "FEC parity: 1 of 4 blocks do not match the data and tree, the first at byte "
                + (g.fecOffset() + 3 * 4096)
                + " (stale or zeroed FEC: it would repair nothing)");
  }

  @Test
  void zeroHashtreeMarksTreeAndFec() throws IOException {
    byte[] data = TestImages.random(129 * 4096, 7);
    Path image = TestImages.write(dir, "image", data);
    AvbTreeGeometry g = AvbTreeGeometry.of(data.length, 4096, HashAlgorithm.SHA256, 2);
    byte[] root = TestImages.build(image, g, SALT);
    try (FileDevice dev = FileDevice.openChannel(image, true)) {
      assertThat(AvbHashtree.isZeroed(dev, g.imageSize())).isFalse();
      AvbHashtree.zero(dev, g.imageSize(), g.treeSize(), g.fecOffset(), g.fecSize());
      assertThat(AvbHashtree.isZeroed(dev, g.imageSize())).isTrue();
      assertThat(dev.size()).isEqualTo(g.end());
    }
    byte[] magic = "ZeRoHaSH".getBytes(StandardCharsets.US_ASCII);
    byte[] zeroedTree = Arrays.copyOf(magic, (int) g.treeSize());
    byte[] zeroedFec = Arrays.copyOf(magic, (int) g.fecSize());
    assertThat(TestImages.slice(image, g.imageSize(), g.treeSize())).isEqualTo(zeroedTree);
    assertThat(TestImages.slice(image, g.fecOffset(), g.fecSize())).isEqualTo(zeroedFec);
    assertThat(TestImages.slice(image, 0, data.length)).isEqualTo(data);
    AvbTreeReport r = TestImages.check(image, g, SALT, root);
    assertThat(r.rootMatches()).isFalse();
    assertThat(r.ok()).isFalse();
  }

  @Test
  void zeroLeavesAnEmptyTreeAlone() throws IOException {
    Path image = TestImages.write(dir, "image", TestImages.random(4096 + 8192, 8));
    byte[] before = Files.readAllBytes(image);
    try (FileDevice dev = FileDevice.openChannel(image, true)) {
      AvbHashtree.zero(dev, 4096, 0, 4096, 8192); // one block: no tree, FEC right after the data
      assertThat(AvbHashtree.isZeroed(dev, 4096)).isTrue(); // the FEC's marker
    }
    byte[] after = Files.readAllBytes(image);
    assertThat(after.length).isEqualTo(before.length);
    assertThat(Arrays.copyOf(after, 4096)).isEqualTo(Arrays.copyOf(before, 4096));
  }

  @Test
  void isZeroedOnAShortImage() throws IOException {
    Path image = TestImages.write(dir, "image", new byte[4100]);
    try (FileDevice dev = FileDevice.openChannel(image, false)) {
      assertThat(AvbHashtree.isZeroed(dev, 4096)).isFalse();
    }
  }
}
