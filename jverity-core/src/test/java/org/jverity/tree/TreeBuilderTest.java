package org.jverity.tree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.UUID;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.format.HashFormat;
import org.jverity.format.HashNames;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.DeviceTooSmallException;
import org.jverity.io.MemoryDevice;
import org.jverity.testing.Algorithms;
import org.jverity.testing.Images;
import org.jverity.testing.ReferenceTree;

class TreeBuilderTest {
  private static final String S =
      "e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d";
  private static final String DERIVED_SALT =
      "20c28ffc129c12360ba6ceea2b6cf04e89c2b41cfe6b8439eb53c1897f50df7b";

  static byte[] build(VerityParams p, byte[] data, MemoryDevice hash) throws Exception {
    return TreeBuilder.of(p).withThreads(3).build(new MemoryDevice("data", data), hash);
  }

  @ParameterizedTest(name = "{0} B blocks, format {1}, {2}, salt {3}")
  @CsvSource({
    // cryptsetup tests/verity-compat-test: 8 MiB of zeros, data block size = hash block size.
    "512, 1, sha256, " + S + ", 9de18652fe74edfb9b805aaed72ae2aa48f94333f1ba5c452ac33b1c39325174",
    "1024, 1, sha256, " + S + ", 54d92778750495d1f80832b486ebd007617d746271511bbf0e295e143da2b3df",
    "4096, 1, sha256, " + S + ", e522df0f97da4febb882ac40f30b37dc0b444bf6df418929463fa25280f09d5c",
    "4096, 0, sha256, " + S + ", cbbf4ebd004ef65e29b935bb635a39cf754d677f3fa10b0126da725bbdf10f7d",
    "4096, 1, sha256, -, ef29c902d87350f1da4bfa536e16cebc162a909bf89abe448b81ec500d4fb9bf",
    "1024, 1, sha1, " + S + ", d0e9163ca8844aaa2e88fe5265a8c5d9ee494a99",
    "1024, 1, sha1, dadada, 73509e8e868be6b8ac939817a98a3d35121413b2",
  })
  void matchesVeritysetupCompatTestVectors(int bs, int format, String alg, String salt, String root)
      throws Exception {
    VerityParams p =
        VerityParams.builder()
            .blockSize(bs)
            .hashFormat(HashFormat.fromCode(format))
            .hashAlgorithm(HashNames.fromName(alg))
            .dataBlocks((8 << 20) / bs)
            .salt(salt.equals("-") ? new byte[0] : Hex.parse("salt", salt))
            .superblock(false)
            .build();
    assertThat(Hex.format(build(p, new byte[8 << 20], new MemoryDevice("hash")))).isEqualTo(root);
  }

  @Test
  void matchesVeritysetupApiTestVectorWithSuperblock() throws Exception {
    UUID uuid = UUID.fromString("a60c98d2-ae9b-4865-bfcb-b4e3ace11033");
    VerityParams p =
        VerityParams.builder()
            .dataBlocks(1250)
            .salt(Hex.parse("salt", DERIVED_SALT))
            .uuid(uuid)
            .build();
    MemoryDevice hash = new MemoryDevice("hash");
    byte[] root = build(p, new byte[1250 * 4096], hash);
    assertThat(Hex.format(root))
        .isEqualTo("ab018b003a967fc782effb293b6dccb60b4f40c06bf80d16391acf686d28b5d6");
    byte[] written = hash.toByteArray();
    assertThat(written).hasSize(49152);
    assertThat(VeritySuperblock.decode("hash", Arrays.copyOf(written, 512)).toParams(0))
        .isEqualTo(p);
  }

  @ParameterizedTest(name = "{0} zero blocks of {1}/{2}, {3} format {4}")
  @CsvSource({
    // REFERENCE.md derived vectors (veritysetup 2.6.1, --no-superblock, salt S): root and sha256 of
    // the tree.
    "1, 4096, 4096, sha256, 1, 6c14ed2d41cb5590edee916ae19a97bf68fe6b178a6086276a37700f1cc5d727, 0, ",
    "128, 4096, 4096, sha256, 1, d9df0b934096e78af62317143aa4255c652198af1874e2221e1b5a036becf2b5, 4096, b2929886616f18a4e517bd37f0209bdb0be99f9f7fe96e9acdcd78bb85ec627a",
    "129, 4096, 4096, sha256, 1, 972f53ee9846957311243f1f427554697e6a0d1ae43ce1f79c88b6ac80045170, 12288, 361a3a36a61addf835c4f0620aab3271ed6c8d50103524d9d1d14bb6f2f75474",
    "16385, 4096, 4096, sha256, 1, 6d3e2e8907917fd2eacb49882bd3b0c7a413ab5bcfef0114bd63bc1e5f05b64b, 540672, 444b676883e3c2d8eadf7055c46da3ae8aef7f494f8bb4c11f0d8cdb108205d9",
    "129, 4096, 4096, sha1, 0, e59077c63c78edcacca69804224481e897981670, 12288, 5f90b1c5046cd28146da2086018385cc15d100410e4899c02893b8724c43b6e0",
    "129, 4096, 4096, sha512, 1, 7595fa0bbca7491de3e6aee8bb9e9b3c8bbe97850d411b9261457663fe9a2a71b6c963528919facd2fe48f0195c91ea27e5026361d88ba964f44b45129e1662d, 16384, 41b3ecd8696ee6815d30130e56b1aec6c06ddc75d1134f3fa0534be24b20b620",
    "1032, 512, 4096, sha256, 1, cb0626d85844a201d7a943b9c9cdeca6eebf2151c78d37eb670963d917c625c0, 40960, 9bc216cb03e577d065e8445b178eecdf7eb48d22324a93477d4e9dcc2bcebed0",
  })
  void matchesVeritysetupTreesByteForByte(
      long n,
      int dbs,
      int hbs,
      String alg,
      int format,
      String root,
      int treeBytes,
      String treeSha256)
      throws Exception {
    VerityParams p =
        VerityParams.builder()
            .dataBlockSize(dbs)
            .hashBlockSize(hbs)
            .hashAlgorithm(HashNames.fromName(alg))
            .hashFormat(HashFormat.fromCode(format))
            .dataBlocks(n)
            .salt(Hex.parse("salt", S))
            .superblock(false)
            .build();
    MemoryDevice hash = new MemoryDevice("hash");
    assertThat(Hex.format(build(p, new byte[(int) n * dbs], hash))).isEqualTo(root);
    byte[] tree = hash.toByteArray();
    assertThat(tree).hasSize(treeBytes);
    if (treeBytes > 0) {
      assertThat(Hex.format(MessageDigest.getInstance("SHA-256").digest(tree)))
          .isEqualTo(treeSha256);
    }
  }

  @Property(tries = 60)
  void agreesWithANaiveReferenceTree(
      @ForAll @IntRange(min = 1, max = 700) int blocks,
      @ForAll @IntRange(min = 9, max = 12) int dataBits,
      @ForAll @IntRange(min = 9, max = 12) int hashBits,
      @ForAll @IntRange(min = 0, max = 10) int algorithm,
      @ForAll boolean chromeOs,
      @ForAll @IntRange(min = 0, max = 256) int saltSize,
      @ForAll @IntRange(min = 1, max = 4) int threads,
      @ForAll long seed)
      throws Exception {
    HashAlgorithm alg = Algorithms.BUILT_IN.get(algorithm);
    if ((1 << hashBits) < 2 * alg.digestSize()) {
      return;
    }
    VerityParams p =
        VerityParams.builder()
            .dataBlockSize(1 << dataBits)
            .hashBlockSize(1 << hashBits)
            .hashAlgorithm(alg)
            .hashFormat(chromeOs ? HashFormat.CHROME_OS : HashFormat.NORMAL)
            .dataBlocks(blocks)
            .salt(Images.random(seed, saltSize))
            .superblock(false)
            .build();
    byte[] data = Images.random(seed + 1, blocks << dataBits);
    ReferenceTree.Result want = ReferenceTree.build(p, data);
    MemoryDevice hash = new MemoryDevice("hash");
    byte[] root =
        TreeBuilder.of(p).withThreads(threads).build(new MemoryDevice("data", data), hash);
    assertThat(root).isEqualTo(want.root());
    assertThat(hash.toByteArray()).isEqualTo(want.tree());
  }

  @Test
  void neitherTruncatesNorTouchesBytesOutsideTheHashArea() throws Exception {
    byte[] before = Images.repeat((byte) 0x77, 64 << 10);
    MemoryDevice hash = new MemoryDevice("hash", before);
    VerityParams p =
        VerityParams.builder().dataBlocks(4).hashOffset(8192).superblock(false).build();
    build(p, new byte[4 * 4096], hash);
    byte[] after = hash.toByteArray();
    assertThat(after).hasSize(before.length);
    assertThat(Arrays.copyOf(after, 8192)).isEqualTo(Arrays.copyOf(before, 8192));
    assertThat(Arrays.copyOfRange(after, 12288, after.length))
        .isEqualTo(Arrays.copyOfRange(before, 12288, before.length));
  }

  @Test
  void refusesADataDeviceShorterThanItsBlocks() {
    VerityParams p = VerityParams.builder().dataBlocks(3).superblock(false).build();
    assertThatThrownBy(() -> build(p, new byte[2 * 4096], new MemoryDevice("hash")))
        .isInstanceOf(DeviceTooSmallException.class)
        .hasMessageContaining("has 8192 bytes, needs 12288");
  }
}
