package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.jverity.testing.DeviceWrapper;
import org.jverity.testing.TestImage;
import org.jverity.tree.Area;

/** The repair seam FEC plugs into: after compare and recheck, before the corruption policy. */
class BlockRepairerTest {
  private static final int BS = 4096;

  /** A repairer that answers from a pristine copy, and remembers what it was asked. */
  static final class FromCopy implements BlockRepairer {
    final TestImage pristine;
    final List<String> asked = new CopyOnWriteArrayList<>();

    FromCopy(TestImage pristine) {
      this.pristine = pristine;
    }

    @Override
    public byte[] repair(Area area, long block, int blockSize, BlockCheck check) {
      asked.add(area.name() + " " + block);
      byte[] from = area == Area.DATA ? pristine.data() : pristine.hash();
      return Arrays.copyOfRange(from, (int) (block * blockSize), (int) ((block + 1) * blockSize));
    }
  }

  @Test
  void aCorruptDataBlockIsRepairedVerifiedAndNotCountedAsCorruption() throws Exception {
    TestImage im = TestImage.random(600, BS, 31);
    TestImage pristine =
        new TestImage(im.params(), im.data().clone(), im.hash().clone(), im.root());
    im.data()[42 * BS + 7] ^= 1;
    FromCopy fec = new FromCopy(pristine);
    try (VerifiedReader r =
        VerifiedReader.open(
            im.params(),
            im.dataDevice(),
            im.hashDevice(),
            im.root(),
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS.withRepairer(fec))) {
      assertThat(r.read(40 * BS, 4 * BS))
          .isEqualTo(Arrays.copyOfRange(pristine.data(), 40 * BS, 44 * BS));
      assertThat(fec.asked).containsExactly("DATA 42");
      assertThat(r.repairedCount()).isEqualTo(1);
      assertThat(r.corruptionCount()).isZero();
      assertThat(r.status()).isEqualTo('V');
    }
  }

  @Test
  void aRepairedHashBlockIsInstalledVerifiedSoItIsNotRepairedAgain() throws Exception {
    TestImage im = TestImage.random(600, BS, 32);
    TestImage pristine =
        new TestImage(im.params(), im.data().clone(), im.hash().clone(), im.root());
    im.hash()[2 * BS + 3] ^= 1; // level-0 hash block 2 (block 0 is the top)
    FromCopy fec = new FromCopy(pristine);
    var counting = new DeviceWrapper.Counting(im.hashDevice());
    try (VerifiedReader r =
        VerifiedReader.open(
            im.params(),
            im.dataDevice(),
            counting,
            im.root(),
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS.withRepairer(fec))) {
      for (int b = 128; b < 256; b++) { // every data block under hash block 2
        assertThat(r.read((long) b * BS, BS))
            .isEqualTo(Arrays.copyOfRange(pristine.data(), b * BS, (b + 1) * BS));
      }
      assertThat(fec.asked).containsExactly("HASH 2");
      assertThat(r.repairedCount()).isEqualTo(1);
      assertThat(r.corruptionCount()).isZero();
    }
  }

  @Test
  void whatARepairerReturnsIsVerifiedBeforeUse() throws Exception {
    TestImage im = TestImage.random(600, BS, 33);
    im.data()[9 * BS] ^= 1;
    BlockRepairer liar = (area, block, size, check) -> new byte[size]; // "repairs" to zeros
    try (VerifiedReader r =
        VerifiedReader.open(
            im.params(),
            im.dataDevice(),
            im.hashDevice(),
            im.root(),
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS.withRepairer(liar))) {
      assertThatThrownBy(() -> r.read(9 * BS, BS)).isInstanceOf(CorruptBlockException.class);
      assertThat(r.repairedCount()).isZero();
      assertThat(r.corruptionCount()).isEqualTo(1);
    }
  }

  @Test
  void theInlinePathNeverAsksTheRepairer() throws Exception {
    TestImage im = TestImage.random(600, BS, 34);
    List<String> asked = new CopyOnWriteArrayList<>();
    BlockRepairer watching =
        (area, block, size, check) -> {
          asked.add(area.name() + " " + block);
          return null;
        };
    var data = new org.jverity.io.MemoryDevice("data", im.data());
    try (VerifiedReader r =
        VerifiedReader.open(
            im.params(),
            data,
            im.hashDevice(),
            im.root(),
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS.withRepairer(watching))) {
      assertThat(r.read(0, 600 * BS)).isEqualTo(im.data()); // every hash block cached and verified
      data.writeFully(5L * BS, java.nio.ByteBuffer.wrap(new byte[] {(byte) ~im.data()[5 * BS]}));
      byte[] dst = new byte[BS];
      assertThat(r.tryReadInline(5L * BS, dst, 0, BS))
          .isZero(); // a mismatch stops the inline attempt
      assertThat(dst).containsOnly(0);
      assertThat(asked).isEmpty();
      assertThat(r.corruptionCount()).isZero();
      assertThatThrownBy(() -> r.read(5L * BS, BS)).isInstanceOf(CorruptBlockException.class);
      assertThat(asked).containsExactly("DATA 5"); // the full path asks
    }
  }
}
