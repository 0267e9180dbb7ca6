package org.jverity.avb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testkit.AvbTestKeys;
import org.jverity.testkit.Veritysetup;

/**
 * AOSP's signed add_hashtree_footer vector (avbtool_unittest, AVB.md 8): a 1,052,672-byte pattern,
 * sha1, salt d00df00d, FEC with 2 roots, partition "foobar" of 1,572,864 bytes, SHA256_RSA2048 with
 * AOSP's test key and release string ''. The tree and FEC come from veritysetup on the
 * single-device layout (AVB.md 4.3); the hashtree descriptor, the vbmeta and the footer from this
 * package. The whole image's sha256 is avbtool's.
 */
class HashtreeFooterVectorTest {
  @TempDir Path dir;

  @Test
  void signedHashtreeFooterImageIsAvbtools() throws Exception {
    int size = 1052672, treeSize = 16384, fecOffset = 1069056, fecSize = 16384;
    int vbmetaOffset = fecOffset + fecSize, partition = 1572864;
    byte[] data = new byte[size];
    for (int i = 0; i < size; i++) {
      data[i] = (byte) i;
    }
    Path img = dir.resolve("img");
    Files.write(img, Arrays.copyOf(data, vbmetaOffset));
    String root = "e811611467dcd6e8dc4324e45f706c2bdd51db67";
    assertThat(
            Veritysetup.tool()
                .in(dir)
                .check(
                    "format",
                    "--no-superblock",
                    "--format=1",
                    "--hash=sha1",
                    "--salt=d00df00d",
                    "--data-block-size=4096",
                    "--hash-block-size=4096",
                    "--data-blocks=257",
                    "--hash-offset=" + size,
                    "--fec-device=img",
                    "--fec-offset=" + fecOffset,
                    "--fec-roots=2",
                    "img",
                    "img")
                .out())
        .contains(root);

    HashtreeDescriptor ht =
        new HashtreeDescriptor(
            1,
            size,
            size,
            treeSize,
            4096,
            4096,
            2,
            fecOffset,
            fecSize,
            "sha1",
            "foobar",
            HexFormat.of().parseHex("d00df00d"),
            HexFormat.of().parseHex(root),
            0);
    byte[] vbmeta =
        new VbmetaBuilder(
                AvbSigner.of(
                    AvbAlgorithm.SHA256_RSA2048,
                    AvbPublicKey.readPrivateKey(AvbTestKeys.copy("testkey_rsa2048.pem", dir))))
            .releaseString("")
            .descriptors(List.of(ht))
            .build();
    assertThat(vbmeta).hasSize(1344);

    byte[] image = Arrays.copyOf(Files.readAllBytes(img), partition);
    System.arraycopy(vbmeta, 0, image, vbmetaOffset, vbmeta.length);
    byte[] footer = AvbFooter.of(size, vbmetaOffset, vbmeta.length).encode();
    System.arraycopy(footer, 0, image, partition - AvbFooter.SIZE, AvbFooter.SIZE);
    byte[] parity = Arrays.copyOfRange(image, fecOffset, fecOffset + fecSize);
    MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
    assertThat(HexFormat.of().formatHex(sha256.digest(parity)))
        .isEqualTo("b1cd359fa2fb5196008efb0043b520de28630c5e560aad3e07528355c7ae5d60");
    assertThat(HexFormat.of().formatHex(sha256.digest(image)))
        .isEqualTo("30e16aef4a3353c5b96542c43c40bbbc99b66c80338ec061dd00cc4e81665828");
  }
}
