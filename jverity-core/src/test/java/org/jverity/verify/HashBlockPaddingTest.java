package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.format.HashFormat;
import org.jverity.format.VerityParams;
import org.jverity.fsverity.FsVerityDescriptor;
import org.jverity.fsverity.FsVerityParams;
import org.jverity.fsverity.FsVerityTreeBuilder;
import org.jverity.fsverity.VerifiedFile;
import org.jverity.hash.HashAlgorithm;
import org.jverity.io.MemoryDevice;
import org.jverity.testing.Images;
import org.jverity.tree.Area;
import org.jverity.tree.CheckReport;
import org.jverity.tree.Corruption;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.TreeBuilder;
import org.jverity.tree.TreeChecker;

/**
 * A tree built for more data blocks than the parameters now say (data_blocks lowered in a
 * superblock, a file size lowered in an fs-verity descriptor) still hashes to its root; only the
 * padding of its last blocks (digests past the new end) tells. The read path must refuse it as
 * {@code veritysetup verify} and the {@link TreeChecker} do, naming the same hash block.
 */
class HashBlockPaddingTest {
  private static final byte[] SALT = Images.random(7, 32);

  /**
   * @param alg hash algorithm
   * @param format dm-verity hash format (0: packed digests, 1: power-of-two slots)
   * @param dbs data block size
   * @param hbs hash block size
   * @param built data blocks the tree was built for
   * @param claimed data blocks the parameters say
   */
  @ParameterizedTest(name = "{0} v{1} {2}/{3}: {4} blocks read as {5}")
  @CsvSource({
    "sha256, 1, 4096, 4096, 1000, 900", // the case: the last level-0 block
    "sha256, 1, 4096, 4096, 1000, 896", // a level-0 block fewer: the top block
    "sha256, 1, 4096, 4096, 100, 50", // one level: the top block is level 0
    "sha256, 1, 4096, 4096, 100, 99", // one digest too many
    "sha1, 1, 512, 512, 100, 90", // 20-byte digests in 32-byte slots
    "sha1, 1, 4096, 4096, 300, 299",
    "sha1, 0, 4096, 4096, 300, 250", // packed, a 128 fan-out with bytes to spare
    "sha1, 0, 1024, 1024, 70, 60",
    "sha512, 1, 4096, 1024, 40, 39",
    "sha256, 0, 1024, 4096, 5000, 4000",
  })
  void aShrunkTreeIsRefusedByTheReaderAsByTheChecker(
      String alg, int format, int dbs, int hbs, long built, long claimed) throws Exception {
    VerityParams full =
        VerityParams.builder()
            .hashAlgorithm(HashAlgorithm.lookup(alg).orElseThrow())
            .hashFormat(HashFormat.fromCode(format))
            .dataBlockSize(dbs)
            .hashBlockSize(hbs)
            .dataBlocks(built)
            .salt(SALT)
            .superblock(false)
            .build();
    byte[] data = Images.random(built, (int) (built * dbs));
    MemoryDevice hash = new MemoryDevice("hash");
    byte[] root = TreeBuilder.of(full).withThreads(1).build(new MemoryDevice("data", data), hash);
    VerityParams shrunk = full.toBuilder().dataBlocks(claimed).build();
    MerkleLayout layout = MerkleLayout.dmVerity(shrunk);
    MemoryDevice dataDev = new MemoryDevice("data", data);

    // verify's verdict: the tree hashes to the root; the last block of a level, or of each level
    // that lost blocks, has digests past the end.
    CheckReport report = TreeChecker.of(shrunk).withThreads(1).check(dataDev, hash, root);
    assertThat(report.rootMatches()).isTrue();
    assertThat(report.ok()).isFalse();
    assertThat(report.corruptions())
        .isNotEmpty()
        .allSatisfy(
            c -> {
              assertThat(c.area()).isEqualTo(Area.HASH);
              assertThat(c.kind()).isEqualTo(Corruption.Kind.SPARE_NOT_ZERO);
            });
    Corruption bad = report.corruptions().get(0); // the highest level: a read meets it first

    // The read path's: the same block, for every data block under one and for no other.
    try (VerifiedReader r =
        VerifiedReader.open(
            shrunk, dataDev, hash, root, new HashBlockCache(1 << 20), ReaderOptions.DEFAULTS)) {
      int size = (int) shrunk.dataSize();
      assertThatThrownBy(() -> r.read(0, new byte[size], 0, size))
          .isInstanceOfSatisfying(
              CorruptBlockException.class,
              e -> {
                assertThat(e.area()).isEqualTo(Area.HASH);
                assertThat(e.block()).isEqualTo(bad.block());
                assertThat(e.level()).isEqualTo(bad.level());
              });
      for (long b : new long[] {0, claimed / 2, claimed - 1}) {
        boolean under =
            report.corruptions().stream()
                .anyMatch(c -> layout.hashBlockOnPath(c.level(), b) == c.block());
        byte[] got = new byte[dbs];
        if (under) {
          assertThatThrownBy(() -> r.read(b * dbs, got, 0, dbs))
              .as("data block %d, under hash block %d", b, bad.block())
              .isInstanceOf(CorruptBlockException.class);
          assertThat(got).as("nothing unverified returned").containsOnly(0);
        } else {
          r.read(b * dbs, got, 0, dbs);
          assertThat(got).isEqualTo(Arrays.copyOfRange(data, (int) b * dbs, (int) (b + 1) * dbs));
        }
      }
      assertThat(r.corruptionCount()).isPositive();
    }

    // Through the scheduler (inline attempt, then the pool), as open and serve read.
    try (VerifiedReader r =
            VerifiedReader.open(
                shrunk, dataDev, hash, root, new HashBlockCache(1 << 20), ReaderOptions.DEFAULTS);
        VerificationScheduler s = new VerificationScheduler(r)) {
      long last = claimed - 1;
      for (int i = 0; i < 2; i++) { // the second time from the cache: the block is not kept
        assertThatThrownBy(() -> s.read(last * dbs, new byte[dbs], 0, dbs))
            .isInstanceOf(CorruptBlockException.class);
      }
    }

    // The tree as built reads back whole: only the padding rule refuses the shrunk one.
    try (VerifiedReader r =
        VerifiedReader.open(
            full, dataDev, hash, root, new HashBlockCache(1 << 20), ReaderOptions.DEFAULTS)) {
      assertThat(r.read(0, data.length)).isEqualTo(data);
    }
  }

  @Test
  void underIgnoreTheBytesAreServedAndTheCorruptionCounted() throws Exception {
    VerityParams full = VerityParams.builder().dataBlocks(300).salt(SALT).superblock(false).build();
    byte[] data = Images.random(3, 300 * 4096);
    MemoryDevice hash = new MemoryDevice("hash");
    byte[] root = TreeBuilder.of(full).build(new MemoryDevice("data", data), hash);
    VerityParams shrunk = full.toBuilder().dataBlocks(200).build();
    try (VerifiedReader r =
        VerifiedReader.open(
            shrunk,
            new MemoryDevice("data", data),
            hash,
            root,
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS.withMode(CorruptionMode.IGNORE))) {
      assertThat(r.read(0, 200 * 4096)).isEqualTo(Arrays.copyOf(data, 200 * 4096));
      assertThat(r.corruptionCount()).isPositive();
      assertThat(r.firstCorruptions().get(0).area()).isEqualTo(Area.HASH);
    }
  }

  @Test
  void aHashBlockRepairedIntoDirtyPaddingIsNotTaken() throws Exception {
    VerityParams full =
        VerityParams.builder()
            .hashAlgorithm(HashAlgorithm.SHA1)
            .dataBlocks(100)
            .salt(SALT)
            .superblock(false)
            .build();
    byte[] data = Images.random(5, 100 * 4096);
    MemoryDevice hash = new MemoryDevice("hash");
    byte[] root = TreeBuilder.of(full).build(new MemoryDevice("data", data), hash);
    VerityParams shrunk = full.toBuilder().dataBlocks(60).build();
    byte[] stored = hash.toByteArray(); // one level: the top block is the whole tree
    int[] asked = {0};
    BlockRepairer returnsTheBlockAsStored =
        (area, block, size, check) -> {
          asked[0]++;
          byte[] same = Arrays.copyOf(stored, size);
          assertThat(check.verifies(same)).as("the repairer's check").isFalse();
          return same;
        };
    try (VerifiedReader r =
        VerifiedReader.open(
            shrunk,
            new MemoryDevice("data", data),
            hash,
            root,
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS.withRepairer(returnsTheBlockAsStored))) {
      assertThatThrownBy(() -> r.read(0, new byte[4096], 0, 4096))
          .isInstanceOf(CorruptBlockException.class);
      assertThat(asked[0]).isEqualTo(1);
      assertThat(r.repairedCount()).isZero();
    }
  }

  /**
   * fs-verity: a file cut short, read with its old tree and a descriptor of the shorter size (whose
   * digest is therefore not what {@code fsverity digest} gives the cut file), is refused.
   */
  @ParameterizedTest(name = "sha{0}, {1}-byte blocks: {2} bytes read as {3}")
  @CsvSource({
    "256, 4096, 1000000, 700000, HASH", // two level-0 blocks: the last one
    "256, 4096, 300000, 250000, HASH", // one level
    "512, 1024, 100000, 90001, HASH", // a short last block
    "256, 4096, 1600000, 1000000, HASH", // level-0 blocks fewer: the top block
    // A level fewer: the old top block hashes to the root but holds no data digests.
    "256, 4096, 1000000, 524288, DATA",
  })
  void anFsVerityFileCutShortIsRefused(int bits, int bs, int built, int claimed, Area area)
      throws Exception {
    HashAlgorithm alg = bits == 256 ? HashAlgorithm.SHA256 : HashAlgorithm.SHA512;
    FsVerityParams p = new FsVerityParams(alg, bs, new byte[0]);
    byte[] file = Images.random(built, built);
    MemoryDevice tree = new MemoryDevice("tree");
    FsVerityDescriptor whole = FsVerityTreeBuilder.of(p).build(new MemoryDevice("f", file), tree);
    MemoryDevice cut = new MemoryDevice("cut", Arrays.copyOf(file, claimed));
    FsVerityDescriptor claimedDescriptor = new FsVerityDescriptor(p, claimed, whole.rootHash());
    assertThat(claimedDescriptor.fileDigest())
        .as("fsverity's digest of the cut file is another")
        .isNotEqualTo(FsVerityTreeBuilder.of(p).digest(cut).fileDigest());

    try (VerifiedFile f =
        VerifiedFile.open(
            cut,
            tree,
            claimedDescriptor.formattedDigest(),
            VerifiedFile.Parameters.DEFAULTS.withBlockSize(bs),
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS,
            HashingPool.shared())) {
      assertThatThrownBy(() -> f.read(0, new byte[claimed], 0, claimed))
          .isInstanceOfSatisfying(
              CorruptBlockException.class, e -> assertThat(e.area()).isEqualTo(area));
    }
    try (VerifiedFile f =
        VerifiedFile.open(
            new MemoryDevice("f", file),
            tree,
            whole.formattedDigest(),
            VerifiedFile.Parameters.DEFAULTS.withBlockSize(bs),
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS,
            HashingPool.shared())) {
      byte[] all = new byte[built];
      f.read(0, all, 0, built);
      assertThat(all).isEqualTo(file);
    }
  }
}
