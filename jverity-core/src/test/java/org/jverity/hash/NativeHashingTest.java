package org.jverity.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.jverity.format.VerityParams;
import org.jverity.io.MemoryDevice;
import org.jverity.testing.TwoStreams;
import org.jverity.tree.LevelPass;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.ProgressListener;
import org.jverity.tree.TreeBuilder;

/**
 * The native block-hashing loop gives the Java path's digests for every algorithm it takes, both
 * salt placements and any run, from a heap array or a direct buffer; and the build made it here
 * (the test command installs gcc and libssl-dev, so its absence is a failure, not a skip).
 */
class NativeHashingTest {
  private static final List<HashAlgorithm> NATIVE =
      List.of(
          HashAlgorithm.SHA1,
          HashAlgorithm.SHA224,
          HashAlgorithm.SHA256,
          HashAlgorithm.SHA384,
          HashAlgorithm.SHA512);

  @Test
  void theBuildMadeTheLoopAndItPassedItsSelfTest() {
    for (HashAlgorithm a : NATIVE) {
      assertThat(BlockHasher.saltBefore(a, new byte[32]).runsNatively())
          .as(
              "native loop for %s: %s (built by jverity-core's build with gcc and libssl-dev)",
              a, BlockHasher.bulkHashingNote().orElse("?"))
          .isTrue();
    }
    assertThat(BlockHasher.bulkHashingNote()).hasValueSatisfying(n -> n.contains("native loop"));
  }

  /** The self-test's known answers are the JDK's: its runs, hashed in Java, digested by the JDK. */
  @Test
  void theSelfTestsAnswersAreTheJdks() throws Exception {
    assertThat(NativeHashing.KNOWN_ANSWERS.keySet())
        .containsExactlyInAnyOrderElementsOf(
            NATIVE.stream().map(HashAlgorithm::kernelName).toList());
    for (HashAlgorithm a : NATIVE) {
      byte[] runs =
          NativeHashing.selfTestRuns(
              a,
              (salt, saltFirst, blocks, off, blockSize, count, out, outOff, stride) ->
                  (saltFirst ? BlockHasher.saltBefore(a, salt) : BlockHasher.saltAfter(a, salt))
                      .inJava()
                      .hashBlocks(blocks, off, blockSize, count, out, outOff, stride));
      String jdk = HexFormat.of().formatHex(MessageDigest.getInstance(a.jcaName()).digest(runs));
      assertThat(NativeHashing.KNOWN_ANSWERS.get(a.kernelName())).as("%s", a).isEqualTo(jdk);
    }
  }

  @Test
  void algorithmsItLacksAndLongSaltsStayInJava() {
    assertThat(BlockHasher.saltBefore(HashAlgorithm.SHA3_256, new byte[32]).runsNatively())
        .isFalse();
    assertThat(BlockHasher.saltBefore(HashAlgorithm.SHA512_256, new byte[32]).runsNatively())
        .isFalse();
    byte[] longSalt = new byte[NativeHashing.MAX_SALT + 1];
    BlockHasher h = BlockHasher.saltAfter(HashAlgorithm.SHA256, longSalt);
    assertThat(h.runsNatively()).isFalse();
    byte[] block = new byte[512];
    byte[] out = new byte[32];
    h.hashBlocks(block, 0, 512, 1, out, 0, 32);
    assertThat(out).isEqualTo(h.hash(block, 0, 512));
    assertThat(h.inJava().runsNatively()).isFalse();
  }

  /**
   * Where this CPU has SHA-NI, runs of SHA-256 blocks go two at a time, and {@code --debug} says
   * so; where it has not (or JVERITY_SHA256_X2=off), they do not. Either way the answer is checked:
   * a build whose two-stream path is present but unused fails here.
   */
  @Test
  void sha256GoesTwoBlocksAtATimeWhereTheCpuHasShaNi() {
    boolean shaNi = TwoStreams.cpuHasShaNi();
    boolean wanted = TwoStreams.expected();
    assertThat(BlockHasher.saltBefore(HashAlgorithm.SHA256, new byte[32]).runsNatively()).isTrue();
    assertThat(NativeHashing.sha256TwoStreams())
        .as("SHA-NI in /proc/cpuinfo: %s", shaNi)
        .isEqualTo(wanted);
    assertThat(BlockHasher.bulkHashingNote())
        .hasValueSatisfying(
            n -> assertThat(n.contains("SHA-256 two blocks at a time")).as(n).isEqualTo(wanted));
  }

  /**
   * The tree builder hands its runs to the two streams where this CPU has SHA-NI: building a
   * SHA-256 tree of 256 data blocks hashes at least 128 pairs; elsewhere none, and the root is the
   * Java path's either way.
   */
  @Test
  void theTreeBuilderHashesTwoBlocksAtATime() throws Exception {
    VerityParams p =
        VerityParams.builder().dataBlocks(256).salt(new byte[32]).superblock(false).build();
    byte[] data = new byte[256 * 4096];
    new SplittableRandom(7).nextBytes(data);
    long before = BlockHasher.sha256PairsHashed();
    byte[] root = TreeBuilder.of(p).build(new MemoryDevice("data", data), new MemoryDevice("hash"));
    long pairs = BlockHasher.sha256PairsHashed() - before;
    if (TwoStreams.expected()) {
      assertThat(pairs)
          .as("pairs hashed two at a time by the tree builder")
          .isGreaterThanOrEqualTo(128);
    } else {
      assertThat(pairs).isZero();
    }
    byte[] level0 = new byte[256 * 32];
    p.blockHasher().inJava().hashBlocks(data, 0, 4096, 256, level0, 0, 32);
    byte[] level1 = new byte[2 * 32];
    p.blockHasher().inJava().hashBlocks(level0, 0, 4096, 2, level1, 0, 32);
    byte[] top = new byte[4096];
    System.arraycopy(level1, 0, top, 0, 64);
    assertThat(root).isEqualTo(p.blockHasher().inJava().hash(top, 0, 4096));
  }

  /**
   * The two-stream path against the JDK on any block length (salt and block straddling the 64-byte
   * chunks anywhere, the padding in one chunk or two), salt lengths either side of a chunk, both
   * placements, odd and even counts.
   */
  @Property(tries = 300)
  void sha256PairsGiveTheJdksDigests(
      @ForAll @IntRange(min = 1, max = 5000) int blockSize,
      @ForAll @IntRange(min = 0, max = 300) int saltLength,
      @ForAll boolean saltFirst,
      @ForAll @IntRange(min = 2, max = 9) int count,
      @ForAll @IntRange(min = 0, max = 63) int offset,
      @ForAll long seed)
      throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    byte[] salt = new byte[saltLength];
    random.nextBytes(salt);
    byte[] blocks = new byte[offset + blockSize * count];
    random.nextBytes(blocks);
    BlockHasher hasher =
        saltFirst
            ? BlockHasher.saltBefore(HashAlgorithm.SHA256, salt)
            : BlockHasher.saltAfter(HashAlgorithm.SHA256, salt);
    byte[] out = new byte[32 * count];
    hasher.hashBlocks(blocks, offset, blockSize, count, out, 0, 32);
    for (int i = 0; i < count; i++) {
      MessageDigest jdk = MessageDigest.getInstance("SHA-256");
      if (saltFirst) {
        jdk.update(salt);
      }
      jdk.update(blocks, offset + i * blockSize, blockSize);
      if (!saltFirst) {
        jdk.update(salt);
      }
      assertThat(java.util.Arrays.copyOfRange(out, 32 * i, 32 * i + 32))
          .as("block %d of %d", i, count)
          .isEqualTo(jdk.digest());
    }
  }

  @Property(tries = 200)
  void runsGiveTheJavaDigests(
      @ForAll @IntRange(min = 0, max = 4) int algorithm,
      @ForAll @IntRange(min = 0, max = 300) int saltLength,
      @ForAll boolean saltFirst,
      @ForAll @IntRange(min = 0, max = 2) int blockSizeIndex,
      @ForAll @IntRange(min = 1, max = 40) int count,
      @ForAll @IntRange(min = 0, max = 16) int spare,
      @ForAll @IntRange(min = 0, max = 100) int offset,
      @ForAll long seed) {
    HashAlgorithm a = NATIVE.get(algorithm);
    int blockSize = new int[] {512, 1024, 4096}[blockSizeIndex];
    SplittableRandom random = new SplittableRandom(seed);
    byte[] salt = new byte[saltLength];
    random.nextBytes(salt);
    BlockHasher hasher =
        saltFirst ? BlockHasher.saltBefore(a, salt) : BlockHasher.saltAfter(a, salt);
    BlockHasher java = hasher.inJava();
    byte[] blocks = new byte[offset + blockSize * count];
    random.nextBytes(blocks);
    int stride = a.digestSize() + spare;
    int outOff = offset % 7;
    int outLength = outOff + stride * count;

    byte[] expected = new byte[outLength];
    java.hashBlocks(blocks, offset, blockSize, count, expected, outOff, stride);
    for (int i = 0; i < count; i++) { // the Java run is the one-block hash, block by block
      byte[] one = java.hash(blocks, offset + i * blockSize, blockSize);
      assertThat(expected).containsSequence(one);
    }

    byte[] fromArray = new byte[outLength];
    hasher.hashBlocks(blocks, offset, blockSize, count, fromArray, outOff, stride);
    assertThat(fromArray).isEqualTo(expected);

    ByteBuffer direct = ByteBuffer.allocateDirect(blocks.length).put(0, blocks);
    byte[] fromDirect = new byte[outLength];
    hasher.hashBlocks(direct, offset, blockSize, count, fromDirect, outOff, stride);
    assertThat(fromDirect).isEqualTo(expected);

    byte[] fromJavaDirect = new byte[outLength];
    java.hashBlocks(direct, offset, blockSize, count, fromJavaDirect, outOff, stride);
    assertThat(fromJavaDirect).isEqualTo(expected);
  }

  @Test
  void aRunOutsideItsArraysIsRefusedBeforeAnyByteIsWritten() {
    BlockHasher h = BlockHasher.saltBefore(HashAlgorithm.SHA256, new byte[32]);
    byte[] blocks = new byte[4096 * 4];
    byte[] out = new byte[32 * 4];
    assertThatThrownBy(() -> h.hashBlocks(blocks, 1, 4096, 4, out, 0, 32))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> h.hashBlocks(blocks, 0, 4096, 4, out, 1, 32))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> h.hashBlocks(blocks, 0, 4096, 4, out, 0, 31))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> h.hashBlocks(ByteBuffer.allocateDirect(4096), 0, 4096, 2, out, 0, 32))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(out).containsOnly(0);
  }

  /** A whole tree, both layouts: the native loop's levels are the Java path's, byte for byte. */
  @Property(tries = 30)
  void treesAreTheSameEitherWay(
      @ForAll @IntRange(min = 1, max = 3000) int blocks,
      @ForAll @IntRange(min = 0, max = 4095) int tail,
      @ForAll boolean fsVerity,
      @ForAll long seed)
      throws IOException {
    byte[] data = new byte[blocks * 4096 - (fsVerity ? tail : 0)];
    new SplittableRandom(seed).nextBytes(data);
    byte[] salt = new byte[fsVerity ? 8 : 32];
    new SplittableRandom(~seed).nextBytes(salt);
    // dm-verity with SHA-1: 20-byte digests in 32-byte slots, the stride the loop must keep.
    VerityParams dm =
        VerityParams.builder()
            .hashAlgorithm(HashAlgorithm.SHA1)
            .dataBlocks(blocks)
            .salt(salt)
            .superblock(false)
            .build();
    MerkleLayout layout =
        fsVerity
            ? MerkleLayout.fsVerity(HashAlgorithm.SHA256, 4096, data.length)
            : MerkleLayout.dmVerity(dm);
    BlockHasher hasher =
        fsVerity ? BlockHasher.fsVerity(HashAlgorithm.SHA256, salt) : dm.blockHasher();
    MemoryDevice viaNative = new MemoryDevice("native");
    MemoryDevice viaJava = new MemoryDevice("java");
    MemoryDevice in = new MemoryDevice("data", data);
    LevelPass.writeLevels(layout, hasher, in, viaNative, ProgressListener.NONE, 2);
    LevelPass.writeLevels(layout, hasher.inJava(), in, viaJava, ProgressListener.NONE, 2);
    assertThat(viaNative.size()).isEqualTo(viaJava.size());
    byte[] a = new byte[(int) viaNative.size()];
    byte[] b = new byte[a.length];
    viaNative.readFully(0, a, 0, a.length);
    viaJava.readFully(0, b, 0, b.length);
    assertThat(a).isEqualTo(b);
  }
}
