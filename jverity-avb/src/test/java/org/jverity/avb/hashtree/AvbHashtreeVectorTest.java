package org.jverity.avb.hashtree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.jverity.avb.hashtree.TestImages.build;
import static org.jverity.avb.hashtree.TestImages.pattern;
import static org.jverity.avb.hashtree.TestImages.sha256;
import static org.jverity.avb.hashtree.TestImages.slice;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.format.Hex;
import org.jverity.hash.HashAlgorithm;
import org.jverity.hashes.VeritysetupHashes;
import org.jverity.io.FileDevice;
import org.jverity.tree.ProgressListener;

/** The known answers of AVB.md section 8: AOSP's avbtool_unittest and runs of avbtool. */
class AvbHashtreeVectorTest {
  private static final int AOSP_SIZE = 1_052_672;
  private static final byte[] AOSP_SALT = Hex.parse("salt", "d00df00d");
  private static final byte[] SALT_32 =
      Hex.parse("salt", "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");

  @TempDir Path dir;

  private String root(int size, HashAlgorithm alg, byte[] salt, int roots) throws IOException {
    Path image = TestImages.write(dir, "image", pattern(size));
    AvbTreeGeometry g = AvbTreeGeometry.of(size, 4096, alg, roots);
    return Hex.format(build(image, g, salt));
  }

  @Test
  void aospSha1WithoutFec() throws IOException {
    assertThat(root(AOSP_SIZE, HashAlgorithm.SHA1, AOSP_SALT, 0))
        .isEqualTo("e811611467dcd6e8dc4324e45f706c2bdd51db67");
    assertThat(Files.size(dir.resolve("image"))).isEqualTo(1_069_056); // data + 16384 of tree
  }

  @Test
  void aospSha1WithFec() throws IOException {
    Path image = TestImages.write(dir, "image", pattern(AOSP_SIZE));
    AvbTreeGeometry g = AvbTreeGeometry.of(AOSP_SIZE, 4096, HashAlgorithm.SHA1, 2);
    assertThat(Hex.format(build(image, g, AOSP_SALT)))
        .isEqualTo("e811611467dcd6e8dc4324e45f706c2bdd51db67");
    assertThat(g.fecOffset()).isEqualTo(1_069_056);
    assertThat(g.fecSize()).isEqualTo(16384);
    assertThat(sha256(slice(image, g.fecOffset(), g.fecSize())))
        .isEqualTo("b1cd359fa2fb5196008efb0043b520de28630c5e560aad3e07528355c7ae5d60");
    assertThat(Files.size(image)).isEqualTo(1_085_440);
  }

  @Test
  void aospSha256AndSha512() throws IOException {
    assertThat(root(AOSP_SIZE, HashAlgorithm.SHA256, AOSP_SALT, 0))
        .isEqualTo("b10378ed2fbd732cccb9738a06786ece6c3262843f452c1f86ba4bd72ccd5e0a");
    assertThat(root(AOSP_SIZE, HashAlgorithm.SHA512, AOSP_SALT, 0))
        .isEqualTo(
            "f31fb64be06905aa9d8f2877bbaf9af861411f4362659bc336e8d24092d27b60"
                + "da0b6c0a153e948a28e7c53dc2dd11fa8f5e7ba70c907ab9db0e709bf6c29175");
  }

  @Test
  void aospBlake2b256() throws IOException {
    VeritysetupHashes.register(); // jverity-hashes, a test dependency here
    HashAlgorithm blake = HashAlgorithm.lookup("blake2b-256").orElseThrow();
    assertThat(root(AOSP_SIZE, blake, AOSP_SALT, 0))
        .isEqualTo("9ed423dda921619181bf1889746fe2dd28ae1e673be8d802b4713122e3209513");
  }

  @Test
  void aospOneBlockImage() throws IOException {
    Path image = TestImages.write(dir, "image", pattern(4096));
    AvbTreeGeometry g = AvbTreeGeometry.of(4096, 4096, HashAlgorithm.SHA1, 2);
    assertThat(Hex.format(build(image, g, AOSP_SALT)))
        .isEqualTo("4bd1e1f0aa1c2c793bb9f3e52de6ae7393889e61");
    assertThat(g.treeSize()).isZero();
    assertThat(g.fecSize()).isEqualTo(8192);
    assertThat(Files.size(image)).isEqualTo(12288); // vbmeta@12288
  }

  @Test
  void aospNoHashtreeRootLeavesTheImageAlone() throws IOException {
    byte[] content = pattern(10_416_128);
    Path image = TestImages.write(dir, "image", content);
    AvbTreeGeometry g = AvbTreeGeometry.of(content.length, 4096, HashAlgorithm.SHA1, 0);
    byte[] root;
    try (FileDevice dev = FileDevice.openChannel(image, false)) {
      root =
          AvbHashtree.rootDigest(dev, g, Hex.parse("salt", "deadbeef"), 0, ProgressListener.NONE);
    }
    assertThat(Hex.format(root)).isEqualTo("4215bd42bcc99636f42956ce3d2c7884d6a8093b");
    assertThat(Files.size(image)).isEqualTo(content.length);
  }

  @Test
  void avbrootEmptyImageRoot() throws IOException {
    Path image = TestImages.write(dir, "image", new byte[0]);
    AvbTreeGeometry g = AvbTreeGeometry.of(0, 4096, HashAlgorithm.SHA256, 0);
    assertThat(Hex.format(build(image, g, "Salt".getBytes(StandardCharsets.US_ASCII))))
        .startsWith("150fe551")
        .endsWith("00a3");
  }

  @Test
  void oneMibWith32ByteSalt() throws IOException {
    assertThat(root(1 << 20, HashAlgorithm.SHA1, SALT_32, 0))
        .isEqualTo("2b9c1718a693d97fc700e65dc9dbc654a4e62671");
    Path image = TestImages.write(dir, "image", pattern(1 << 20));
    AvbTreeGeometry g = AvbTreeGeometry.of(1 << 20, 4096, HashAlgorithm.SHA256, 2);
    assertThat(Hex.format(build(image, g, SALT_32)))
        .isEqualTo("8aa2f74295ea42326038971b0ff0db96b3e2319ac9a5d3fc18fd5e9cd7230a8e");
    assertThat(g.fecSize()).isEqualTo(16384);
    assertThat(sha256(slice(image, g.fecOffset(), g.fecSize())))
        .isEqualTo("f4fe90c44408d43cdae336a540c406b7fcea3180fb90d7d880902659e0440d1c");
  }
}
