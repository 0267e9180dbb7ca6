package org.jverity.fec;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jverity.testing.TestImage;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.VerifiedReader;

/**
 * FEC on the read path with a crafted parity file: blocks of the data and hash devices damaged
 * where the fuzzer says, and parity bytes overwritten with its bytes. Every read returns the
 * original bytes or fails with {@link CorruptBlockException}: a parity file, however crafted, never
 * gets an unverified byte returned, nor an exception of another type.
 */
class FecReadPathFuzzTest {
  private static final int BLOCKS = 64;
  private static final int BLOCK_SIZE = 512;

  /** One pristine image per number of roots: building one costs more than a run. */
  private static final Map<Integer, FecImage> IMAGES = new ConcurrentHashMap<>();

  @FuzzTest(maxDuration = "3m")
  void readsAreOriginalOrCorrupt(FuzzedDataProvider in) throws IOException {
    FecImage pristine =
        IMAGES.computeIfAbsent(in.consumeInt(ReedSolomon.MIN_ROOTS, 8), FecReadPathFuzzTest::image);
    byte[] parity = pristine.parity().clone();
    FecImage f =
        new FecImage(
            new TestImage(
                pristine.image().params(),
                pristine.pristineData().clone(),
                pristine.pristineHash().clone(),
                pristine.image().root()),
            pristine.layout(),
            parity,
            pristine.pristineData(),
            pristine.pristineHash());
    FecLayout l = f.layout();
    int damaged = in.consumeInt(0, 4);
    for (int i = 0; i < damaged; i++) {
      long m = in.consumeLong(0, l.messageBlocks() - 1);
      byte[] a = f.arrayOf(m);
      int at = f.offsetOf(m) + in.consumeInt(0, BLOCK_SIZE - 1);
      int n = Math.min(in.consumeInt(1, BLOCK_SIZE), a.length - at);
      for (int j = 0; j < n; j++) {
        a[at + j] ^= (byte) in.consumeInt(1, 255);
      }
    }
    while (in.remainingBytes() > 4) { // the rest crafts the parity: (offset, bytes) runs
      int at = in.consumeInt(0, parity.length - 1);
      byte[] run = in.consumeBytes(in.consumeInt(1, 64));
      System.arraycopy(run, 0, parity, at, Math.min(run.length, parity.length - at));
    }
    // Run once, not through ParserContract's two measured runs: a crafted round costs full
    // decodes, and what bounds the memory here is the reader's cache, not the input.
    try (VerifiedReader r = f.reader(f.repairer())) {
      for (int b = 0; b < BLOCKS; b++) {
        try {
          assertThat(r.read((long) b * BLOCK_SIZE, BLOCK_SIZE))
              .as("block %d", b)
              .isEqualTo(f.original(b));
        } catch (CorruptBlockException e) {
          // refused: the policy saw it
        }
      }
    }
  }

  private static FecImage image(int roots) {
    try {
      return FecImage.of(BLOCKS, BLOCK_SIZE, roots, roots);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
