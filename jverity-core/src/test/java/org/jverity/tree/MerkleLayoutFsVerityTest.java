package org.jverity.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.format.HashNames;
import org.jverity.hash.BlockHasher;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.MemoryDevice;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * The fs-verity factory of {@link MerkleLayout}, with {@link BlockHasher#fsVerity}: a tree laid out
 * by it, hashed by it, gives fsverity-utils' own known-answer file digests (its {@code
 * test_compute_digest} vectors, reproduced with fsverity 1.5), and the verified reader reads such a
 * tree, short last block included.
 */
class MerkleLayoutFsVerityTest {

  /** The test file of fsverity-utils: byte i = ((i % 11) + (i % 439) + (i % 1103)) mod 256. */
  static byte[] file(int size) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) ((i % 11) + (i % 439) + (i % 1103));
    }
    return b;
  }

  /** Builds the tree naively, level by level, placing each digest where the layout says. */
  static byte[] tree(MerkleLayout l, BlockHasher h, byte[] data) {
    byte[] tree = new byte[(int) (l.hashBlocks() * l.hashBlockSize())];
    for (int level = 0; level < l.levels(); level++) {
      for (long i = 0; i < l.inputBlocks(level); i++) {
        byte[] block = new byte[l.inputBlockSize(level)];
        if (level == 0) {
          int from = (int) (i * l.dataBlockSize());
          System.arraycopy(
              data, from, block, 0, Math.min(block.length, data.length - from)); // zero-padded
        } else {
          System.arraycopy(
              tree,
              (int) ((l.levelStart(level - 1) + i) * l.hashBlockSize()),
              block,
              0,
              block.length);
        }
        HashLocation at = l.locate(level, i);
        h.hash(
            block, 0, block.length, tree, (int) (at.hashBlock() * l.hashBlockSize()) + at.offset());
      }
    }
    return tree;
  }

  static byte[] root(MerkleLayout l, BlockHasher h, byte[] data, byte[] tree) {
    if (l.dataBlocks() == 0) {
      return new byte[l.digestSize()];
    }
    if (l.levels() == 0) {
      return h.hash(Arrays.copyOf(data, l.dataBlockSize()), 0, l.dataBlockSize());
    }
    int top = (int) (l.levelStart(l.levels() - 1) * l.hashBlockSize());
    return h.hash(tree, top, l.hashBlockSize());
  }

  /** The 256-byte fs-verity descriptor whose digest is the file digest. */
  static byte[] descriptorDigest(
      HashAlgorithm alg, int blockSize, long size, byte[] salt, byte[] root) {
    ByteBuffer d = ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);
    d.put((byte) 1)
        .put((byte) (alg == HashAlgorithm.SHA256 ? 1 : 2))
        .put((byte) Integer.numberOfTrailingZeros(blockSize))
        .put((byte) salt.length)
        .putInt(0)
        .putLong(size);
    d.put(16, root).put(80, salt);
    return alg.newDigest().digest(d.array());
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
  })
  void fileDigestsMatchFsverityUtils(
      int size, String alg, int blockSize, String salt, String digest) {
    HashAlgorithm a = HashNames.fromName(alg);
    byte[] saltBytes = salt.getBytes(StandardCharsets.US_ASCII);
    byte[] data = file(size);
    MerkleLayout l = MerkleLayout.fsVerity(a, blockSize, size);
    BlockHasher h = BlockHasher.fsVerity(a, saltBytes);
    byte[] root = root(l, h, data, tree(l, h, data));
    assertThat(HexFormat.of().formatHex(descriptorDigest(a, blockSize, size, saltBytes, root)))
        .isEqualTo(digest);
  }

  @Test
  void fsVerityTreesStartAtZeroWithPackedDigests() {
    MerkleLayout l =
        MerkleLayout.fsVerity(HashAlgorithm.SHA256, 1024, 100_000); // fsverity-utils' callback test
    assertThat(l.dataBlocks()).isEqualTo(98); // 97 whole blocks and a short one
    assertThat(l.levels()).isEqualTo(2);
    assertThat(l.hashBlocks() * 1024).isEqualTo(5 * 1024); // "tree 5 KiB"
    assertThat(l.levelStart(1)).isZero(); // the top level first
    assertThat(l.slotSize()).isEqualTo(32);
    assertThat(l.locateForDataBlock(0, 97))
        .isEqualTo(new HashLocation(1 + 97 / 32, (97 % 32) * 32));
  }

  @Test
  void theVerifiedReaderReadsAnFsVerityTreeShortLastBlockIncluded() throws Exception {
    int size = 1_000_000; // 244 whole 4 KiB blocks and 576 bytes
    byte[] data = file(size);
    MerkleLayout l = MerkleLayout.fsVerity(HashAlgorithm.SHA256, 4096, size);
    BlockHasher h =
        BlockHasher.fsVerity(HashAlgorithm.SHA256, "abcd".getBytes(StandardCharsets.US_ASCII));
    byte[] tree = tree(l, h, data);
    byte[] root = root(l, h, data, tree);
    try (VerifiedReader r =
        VerifiedReader.open(
            l,
            h,
            new MemoryDevice("file", data),
            new MemoryDevice("tree", tree),
            root,
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS)) {
      assertThat(r.size()).isEqualTo(size);
      assertThat(r.read(0, size)).isEqualTo(data);
      assertThat(r.read(size - 1000, 1000)).isEqualTo(Arrays.copyOfRange(data, size - 1000, size));
    }
    data[size - 1] ^= 1; // the short last block is covered too
    try (VerifiedReader r =
        VerifiedReader.open(
            l,
            h,
            new MemoryDevice("file", data),
            new MemoryDevice("tree", tree),
            root,
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS)) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> r.read(size - 10, 10))
          .isInstanceOfSatisfying(
              CorruptBlockException.class, e -> assertThat(e.block()).isEqualTo(244));
    }
  }
}
