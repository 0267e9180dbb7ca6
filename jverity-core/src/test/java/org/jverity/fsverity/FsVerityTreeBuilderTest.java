package org.jverity.fsverity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.format.HashNames;
import org.jverity.format.VerityParameterException;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.MemoryDevice;

/**
 * {@link FsVerityTreeBuilder} and {@link FsVerityDescriptor} against the known-answer file digests
 * of fsverity-utils' {@code test_compute_digest} and of xfstests generic/575 (REFERENCE §3), all
 * reproduced with fsverity 1.5.
 */
class FsVerityTreeBuilderTest {
  private static final HexFormat HEX = HexFormat.of();

  /** fsverity-utils' test file: byte i = ((i % 11) + (i % 439) + (i % 1103)) mod 256. */
  static byte[] file(int size) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) ((i % 11) + (i % 439) + (i % 1103));
    }
    return b;
  }

  static FsVerityDescriptor build(
      byte[] data, String alg, int blockSize, byte[] salt, int threads, boolean keepTree)
      throws Exception {
    FsVerityTreeBuilder b =
        FsVerityTreeBuilder.of(new FsVerityParams(HashNames.fromName(alg), blockSize, salt))
            .withThreads(threads);
    return keepTree
        ? b.build(new MemoryDevice("file", data), new MemoryDevice("tree"))
        : b.digest(new MemoryDevice("file", data));
  }

  @ParameterizedTest(name = "{0} bytes, {1}, {2}-byte blocks, salt ''{3}''")
  @CsvSource({
    "1000000, sha256, 4096, '', 48df0c462329cd879661bd05b39aa81b05cc16afd27a7196a559da83531d39d9",
    "100000, sha256, 4096, '', f2096a36c5cdca4fa33ee8852833150bb324992e5417a9d571f1bffff73b9efc",
    "4096, sha256, 4096, '', 6ac39979016e3ddf3d39fff6cb984f7c118acdf1852919f5c100c4b142c1818e",
    "1, sha256, 4096, '', b803429503d95915829b29fdbc8bbad142f3abfd11b1cadf5526582e685c0551",
    "0, sha256, 4096, '', 3d248ca542a24fc62d1c43b916eae5016878e2533c88238480b26128a1f1af95",
    "1000000, sha256, 4096, abcd, 917900b0d299454aa304d5debc6f39e4af7b5abe33bdbc568d5d8f1e5c4d8652",
    "1000000, sha256, 4096, 0123456789:;<=>?@ABCDEFGHIJKLMNO, bc2d70324c048c220a2cb190832140863eb268e680427939e5d467bea5ec5ad9",
    "1000000, sha256, 1024, '', e9df927c14fcb961d5f51c666d8ae4c14fe4ff98a374c733e898d00c9e74a8e3",
    "1000000, sha256, 512, '', 0393ee3dfd4a28966e2af4e07cfa5b032c30da5bb8e8ef63b9a55bf963262334",
    "1000000, sha256, 65536, '', f3b6418f26d4d0e74728193bae76f15cb4bb2ce9777448d76bd8138b69ec61c2",
    "1000000, sha512, 4096, abcd, 8425c6d0c94f84ed904c12936845fbb7af9953753789712dcc3be142db3d4b6b47a399ad52aa609256ce29a960bf4bb0e595ec386ca58c06519d546dc5b197bb",
  })
  void fsverityUtilsVectors(int size, String alg, int blockSize, String salt, String digest)
      throws Exception {
    byte[] s = salt.getBytes(StandardCharsets.US_ASCII);
    for (int threads : new int[] {1, 3}) {
      for (boolean keep : new boolean[] {false, true}) {
        assertThat(HEX.formatHex(build(file(size), alg, blockSize, s, threads, keep).digest()))
            .as("%d threads, tree kept: %s", threads, keep)
            .isEqualTo(digest);
      }
    }
  }

  @ParameterizedTest(name = "{0} zero bytes, {1}, {2}-byte blocks, salt ''{3}''")
  @CsvSource({
    "0, sha256, 1024, '', f2cca36b9b1b7f07814e4284b10121809133e7cb9c4528c8f6846e85fc624ffa",
    "4096, sha256, 1024, '', ea08590a4fe9c3d6c9dafe0eedacd9dffff8f24e24f1865ee3af132a495ab087",
    "4096, sha256, 4096, '', babc284ee4ffe7f449377fbf6692715b43aec7bc39c094a95878904d34bac97e",
    "65536, sha256, 1024, '', 527496288d703686e31092f5cca7e1306b2467f00b247ad01056ee5ec35a4bb9",
    "65536, sha256, 4096, '', 011e3f2b1dc89b75d78cddcc2a1b85cd8a64b2883e5f20f277ae4c0617e0404f",
    "100000000, sha256, 4096, f3c93fa6fb828c0e1587e5714ecf6f56, 9d33cab743468fcbe4edab91a275b30dd543c12dd5e6ce6f2f737f66a1558f06",
    "0, sha512, 4096, '', ccf9e5aea1c2a64efa2f2354a6024b90dffde6bbc017825045dce374474e13d10adb9dadcc6ca8e17a3c075fbd31336e8f266ae6fa93a6c3bed66f9e784e5abf",
    "4096, sha512, 1024, '', ab3c6444ab377bbe54c604c26cad241b146d85dc29727703a0d8134f70a8172fb3fa67d171355106b69cc0a9e7e9debb335f9461b3aba44093914867f7c73233",
    "65536, sha512, 4096, '', eab7224ce374a0a4babcb2db25e24836247f38b87806ad9be9e5ba4daac2f5b814fc0cbdfd9f1f8499b3c9a6c1b38fe08974cce49883ab4ccd04462fd2f9507f",
    "100000000, sha512, 1024, f3c93fa6fb828c0e1587e5714ecf6f56, 517d573bd50d5f3787f5766c2ac60c7af854b0901b69757b4ef8dd70aa6b30fcc10d81629ce923bdd062a01c20fad0f063a081a2f3b0814ac06547b26bedc0d9",
  })
  void xfstestsGeneric575Vectors(int size, String alg, int blockSize, String salt, String digest)
      throws Exception {
    assertThat(
            HEX.formatHex(
                build(new byte[size], alg, blockSize, HEX.parseHex(salt), 2, false).digest()))
        .isEqualTo(digest);
  }

  /**
   * Sizes either side of one block and of one full hash block (a fan-out of 128 with sha256 and 4
   * KiB blocks, 64 with sha512, 32 with sha256 and 1 KiB, where 1 MiB also fills a second level):
   * the digest, the descriptor and every byte of the tree as {@code fsverity digest} writes them,
   * also when the tree goes after another file's in one output.
   */
  @ParameterizedTest(name = "{0} bytes, {1}, {2}-byte blocks, salt ''{3}''")
  @CsvSource({
    "4095, sha256, 4096, ''",
    "4096, sha256, 4096, ''",
    "4097, sha256, 4096, ''",
    "524288, sha256, 4096, ''",
    "524289, sha256, 4096, 00ff",
    "262145, sha512, 4096, ''",
    "1023, sha256, 1024, ''",
    "1025, sha256, 1024, abcd",
    "32768, sha256, 1024, ''",
    "32769, sha256, 1024, ''",
    "1048576, sha256, 1024, ''",
    "1048577, sha256, 1024, abcd",
  })
  void treeAndDigestAsFsverityWritesThemAtBoundaries(
      int size, String alg, int blockSize, String salt, @TempDir Path dir) throws Exception {
    FsverityTool.Made m = FsverityTool.make(dir, "f", size, size, alg, blockSize, salt);
    byte[] want = Files.readAllBytes(m.tree());
    FsVerityTreeBuilder b =
        FsVerityTreeBuilder.of(
                new FsVerityParams(HashNames.fromName(alg), blockSize, HEX.parseHex(salt)))
            .withThreads(2);
    MemoryDevice tree = new MemoryDevice("tree");
    FsVerityDescriptor d = b.build(new MemoryDevice("file", m.bytes()), tree);
    assertThat(alg + ":" + HEX.formatHex(d.digest())).isEqualTo(m.digest());
    assertThat(d.encode()).isEqualTo(Files.readAllBytes(m.descriptor()));
    assertThat(tree.toByteArray()).isEqualTo(want);

    byte[] before = new byte[1000];
    Arrays.fill(before, (byte) 7);
    MemoryDevice shared = new MemoryDevice("trees", before);
    assertThat(b.build(new MemoryDevice("file", m.bytes()), shared, before.length).encode())
        .isEqualTo(d.encode());
    byte[] all = shared.toByteArray();
    assertThat(Arrays.copyOf(all, before.length)).isEqualTo(before);
    assertThat(Arrays.copyOfRange(all, before.length, all.length)).isEqualTo(want);
  }

  @Test
  void metadataOf100000ZeroBytesIn1KBlocksAsFsverityUtilsCallbackTest() throws Exception {
    MemoryDevice tree = new MemoryDevice("tree");
    FsVerityDescriptor d =
        FsVerityTreeBuilder.of(new FsVerityParams(HashAlgorithm.SHA256, 1024, new byte[0]))
            .build(new MemoryDevice("file", new byte[100_000]), tree);
    assertThat(tree.size()).isEqualTo(5 * 1024);
    assertThat(HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(d.encode())))
        .isEqualTo("09cbbaeed2a04c2da242c10e1568d96f358a16aa1ebe8cf0286120c13c9366d1");
  }

  @Test
  void emptyFileHasZeroRootAndNoTree() throws Exception {
    MemoryDevice tree = new MemoryDevice("tree");
    FsVerityDescriptor d =
        FsVerityTreeBuilder.of(FsVerityParams.defaults())
            .build(new MemoryDevice("file", new byte[0]), tree);
    assertThat(d.rootHash()).isEqualTo(new byte[32]);
    assertThat(tree.size()).isZero();
  }

  @Test
  void descriptorRoundTripsAndFormatsTheSignedDigest() {
    FsVerityDescriptor d =
        new FsVerityDescriptor(
            new FsVerityParams(HashAlgorithm.SHA512, 1024, new byte[] {1, 2, 3}),
            123456789L,
            new byte[64]);
    byte[] e = d.encode();
    assertThat(e).hasSize(256);
    assertThat(FsVerityDescriptor.decode(e)).isEqualTo(d);
    byte[] signed = d.signedDigest();
    assertThat(new String(signed, 0, 8, StandardCharsets.US_ASCII)).isEqualTo("FSVerity");
    assertThat(HEX.formatHex(signed, 8, 12)).isEqualTo("02004000");
  }

  @ParameterizedTest(name = "byte {0} = {1}")
  @CsvSource({"0, 2", "1, 3", "2, 31", "3, 33", "4, 1", "15, 128", "100, 1", "90, 1", "200, 1"})
  void decodeRefusesWhatFsverityWouldNotWrite(int at, int value) {
    byte[] e =
        new FsVerityDescriptor(
                new FsVerityParams(HashAlgorithm.SHA256, 4096, new byte[] {9}), 1, new byte[32])
            .encode();
    e[at] = (byte) value;
    assertThatThrownBy(() -> FsVerityDescriptor.decode(e))
        .isInstanceOf(VerityParameterException.class);
  }

  @Test
  void paramsRefuseWhatFsverityRefuses() {
    assertThatThrownBy(() -> new FsVerityParams(HashAlgorithm.SHA1, 4096, new byte[0]))
        .isInstanceOf(VerityParameterException.class);
    assertThatThrownBy(() -> new FsVerityParams(HashAlgorithm.SHA256, 1000, new byte[0]))
        .isInstanceOf(VerityParameterException.class);
    assertThatThrownBy(() -> new FsVerityParams(HashAlgorithm.SHA512, 64, new byte[0]))
        .isInstanceOf(VerityParameterException.class);
    assertThatThrownBy(() -> new FsVerityParams(HashAlgorithm.SHA256, 4096, new byte[33]))
        .isInstanceOf(VerityParameterException.class);
    assertThat(new FsVerityParams(HashAlgorithm.SHA256, 64, new byte[32]).logBlockSize())
        .isEqualTo(6);
    assertThat(new FsVerityParams(HashAlgorithm.SHA256, 1 << 30, new byte[0]).logBlockSize())
        .isEqualTo(30);
  }
}
