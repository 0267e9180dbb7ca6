package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.jverity.hash.BlockHasher;
import org.jverity.io.MemoryDevice;
import org.jverity.testing.TestImage;
import org.jverity.tree.Area;
import org.jverity.tree.MerkleLayout;

/**
 * Issue 17, defects 1 to 3: the repair seam fails closed. Whatever a {@link BlockRepairer} does
 * (throw, hand over a candidate of the wrong size, keep a reference to what it returned and change
 * it later), the corruption policy sees every mismatch and no read returns a byte that was not
 * verified where it is returned from.
 */
class RepairFailuresTest {
  private static final int BS = 4096;

  /** How a repairer fails. */
  enum Failure {
    IO_EXCEPTION,
    RUNTIME_EXCEPTION,
    WRONG_SIZE_CANDIDATE;

    BlockRepairer repairer() {
      return (area, block, size, check) ->
          switch (this) {
            case IO_EXCEPTION -> throw new IOException("fec: parity unreadable");
            case RUNTIME_EXCEPTION -> throw new IllegalStateException("fec: decoder bug");
            case WRONG_SIZE_CANDIDATE -> check.verifies(new byte[size / 2]) ? new byte[size] : null;
          };
    }
  }

  private static VerifiedReader reader(TestImage im, CorruptionMode mode, BlockRepairer repairer)
      throws IOException {
    return Readers.open(
        im,
        im.dataDevice(),
        im.hashDevice(),
        ReaderOptions.DEFAULTS.withMode(mode).withRepairer(repairer));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Failure.class)
  void aFailingRepairOfADataBlockFailsClosedUnderRestart(Failure f) throws Exception {
    TestImage im = TestImage.random(64, BS, 171);
    im.data()[9 * BS + 5] ^= 1;
    try (VerifiedReader r = reader(im, CorruptionMode.RESTART, f.repairer())) {
      assertThatThrownBy(() -> r.read(9 * BS, BS)).isInstanceOf(CorruptBlockException.class);
      assertThat(r.corruptionCount()).isEqualTo(1);
      assertThat(r.status()).isEqualTo('C');
      assertThat(r.failedClosed()).isTrue();
      assertThatThrownBy(() -> r.read(0, BS)).isInstanceOf(FailedClosedException.class);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Failure.class)
  void aFailingRepairOfAHashBlockFailsClosedUnderPanic(Failure f) throws Exception {
    TestImage im = TestImage.random(600, BS, 172);
    im.hash()[2 * BS + 3] ^= 1; // level-0 hash block 2 (block 0 is the top)
    try (VerifiedReader r = reader(im, CorruptionMode.PANIC, f.repairer())) {
      assertThatThrownBy(() -> r.read(130L * BS, BS))
          .isInstanceOfSatisfying(
              CorruptBlockException.class, e -> assertThat(e.area()).isEqualTo(Area.HASH));
      assertThat(r.corruptionCount()).isEqualTo(1);
      assertThat(r.status()).isEqualTo('C');
      assertThatThrownBy(() -> r.read(0, BS)).isInstanceOf(FailedClosedException.class);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Failure.class)
  void underEioTheCallerGetsTheCorruptionWithTheRepairersFailureAttached(Failure f)
      throws Exception {
    TestImage im = TestImage.random(64, BS, 173);
    im.data()[3 * BS] ^= 1;
    try (VerifiedReader r = reader(im, CorruptionMode.EIO, f.repairer())) {
      assertThatThrownBy(() -> r.read(3 * BS, BS))
          .isInstanceOfSatisfying(
              CorruptBlockException.class,
              e -> {
                assertThat(e.block()).isEqualTo(3);
                if (f != Failure.WRONG_SIZE_CANDIDATE) { // a refused candidate is no failure
                  assertThat(e.getSuppressed()).hasSize(1);
                  assertThat(e.getSuppressed()[0].getMessage()).startsWith("fec: ");
                }
              });
      assertThat(r.corruptionCount()).isEqualTo(1);
      assertThat(r.firstCorruptions()).hasSize(1);
      assertThat(r.read(4 * BS, BS)).isEqualTo(Arrays.copyOfRange(im.data(), 4 * BS, 5 * BS));
    }
  }

  /** Keeps what it returned and changes it when told to: a repairer holding a reference. */
  static final class Keeping implements BlockRepairer {
    private final TestImage pristine;
    volatile byte[] last;

    Keeping(TestImage pristine) {
      this.pristine = pristine;
    }

    @Override
    public byte[] repair(Area area, long block, int blockSize, BlockCheck check) {
      if (area != Area.HASH) {
        return null;
      }
      int at = (int) (block * blockSize);
      return last = Arrays.copyOfRange(pristine.hash(), at, at + blockSize);
    }
  }

  @Test
  void aRepairedHashBlockIsCachedAsTheReaderCopiedItNotAsTheRepairerKeepsIt() throws Exception {
    TestImage im = TestImage.random(600, BS, 174);
    TestImage pristine =
        new TestImage(im.params(), im.data().clone(), im.hash().clone(), im.root());
    im.hash()[2 * BS + 3] ^= 1; // level-0 hash block 2: data blocks 128..255
    Keeping fec = new Keeping(pristine);
    MemoryDevice data = new MemoryDevice("data", im.data());
    try (VerifiedReader r =
        Readers.open(im, data, im.hashDevice(), ReaderOptions.DEFAULTS.withRepairer(fec))) {
      assertThat(r.read(128L * BS, BS))
          .isEqualTo(Arrays.copyOfRange(pristine.data(), 128 * BS, 129 * BS));
      assertThat(r.repairedCount()).isEqualTo(1);
      // The repairer now rewrites its array to vouch for a block of its choosing...
      int victim = 200;
      byte[] forged = new byte[BS];
      Arrays.fill(forged, (byte) 0x66);
      BlockHasher hasher = im.params().blockHasher();
      MerkleLayout layout = MerkleLayout.dmVerity(im.params());
      hasher.hash(forged, 0, BS, fec.last, layout.offsetOnPath(0, victim));
      data.writeFully((long) victim * BS, ByteBuffer.wrap(forged)); // ...and the device holds it
      // The first reader still uses its cached, repaired copy: it must not take the forgery.
      byte[] got = null;
      try {
        got = r.read((long) victim * BS, BS);
      } catch (CorruptBlockException expected) {
        // the right outcome: the block on the device does not match the trusted digest
      }
      assertThat(got).as("the forged block was returned as verified").isNull();
    }
  }

  /**
   * Returns good data blocks, and from another thread keeps flipping a byte of the array it
   * returned last: bytes change between whatever check the reader makes and the copy it returns.
   */
  static final class Flipping implements BlockRepairer, AutoCloseable {
    private final TestImage pristine;
    private volatile byte[] last;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread flipper;

    Flipping(TestImage pristine) {
      this.pristine = pristine;
      this.flipper =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    while (!stop.get()) {
                      byte[] a = last;
                      if (a != null) {
                        a[a.length / 2] ^= 0x10;
                      }
                    }
                  });
    }

    @Override
    public byte[] repair(Area area, long block, int blockSize, BlockCheck check) {
      int at = (int) (block * blockSize);
      byte[] from = area == Area.DATA ? pristine.data() : pristine.hash();
      byte[] out = Arrays.copyOfRange(from, at, at + blockSize);
      last = out;
      return out;
    }

    @Override
    public void close() throws InterruptedException {
      stop.set(true);
      flipper.join();
    }
  }

  @Test
  void aRepairedDataBlockIsVerifiedInTheBytesTheReadReturns() throws Exception {
    TestImage im = TestImage.random(16, BS, 175);
    TestImage pristine =
        new TestImage(im.params(), im.data().clone(), im.hash().clone(), im.root());
    for (int b = 0; b < 16; b++) {
      im.data()[b * BS + 1] ^= 1; // every block needs repair, on every read
    }
    AtomicLong wrongBytes = new AtomicLong();
    AtomicLong good = new AtomicLong();
    long until = System.nanoTime() + 1_500_000_000L;
    try (Flipping fec = new Flipping(pristine);
        VerifiedReader r = reader(im, CorruptionMode.EIO, fec)) {
      byte[] dst = new byte[BS];
      for (int i = 0; System.nanoTime() < until || i < 500; i++) {
        int b = i % 16;
        try {
          r.read((long) b * BS, dst, 0, BS);
        } catch (CorruptBlockException e) {
          continue; // the repairer's copy changed under the check: not repaired, fine
        }
        good.incrementAndGet();
        for (int k = 0; k < BS; k++) {
          if (dst[k] != pristine.data()[b * BS + k]) {
            wrongBytes.incrementAndGet();
          }
        }
      }
    }
    assertThat(good.get()).as("some repairs verified").isPositive();
    assertThat(wrongBytes.get()).as("unverified bytes returned").isZero();
  }
}
