package org.jverity.fec;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;
import java.util.BitSet;
import org.jverity.testkit.ParserContract;

/**
 * The Reed–Solomon decoder on crafted codewords: a codeword with errors at positions and values the
 * fuzzer picks, and erasures it names (some right, some wrong), or 255 bytes of its own. The
 * decoder either refuses (-1, the word left as it was) or leaves a codeword; within the code's
 * capability (2·errors + erasures ≤ roots) it gives back the original.
 */
class ReedSolomonDecoderFuzzTest {
  private static final int N = ReedSolomon.N;

  /** The code and its decoder per number of roots: their tables cost more than a run. */
  private static final ReedSolomon[] CODES = new ReedSolomon[ReedSolomon.MAX_ROOTS + 1];

  private static final ReedSolomonDecoder[] DECODERS =
      new ReedSolomonDecoder[ReedSolomon.MAX_ROOTS + 1];

  static {
    for (int r = ReedSolomon.MIN_ROOTS; r <= ReedSolomon.MAX_ROOTS; r++) {
      CODES[r] = new ReedSolomon(r);
      DECODERS[r] = new ReedSolomonDecoder(r);
    }
  }

  @FuzzTest(maxDuration = "2m")
  void decodesWithinCapabilityAndNeverLeavesANonCodeword(FuzzedDataProvider in) {
    int roots = in.consumeInt(ReedSolomon.MIN_ROOTS, ReedSolomon.MAX_ROOTS);
    ReedSolomon code = CODES[roots];
    int k = code.messageLength();
    boolean raw = in.consumeBoolean(); // the fuzzer's own 255 bytes, not an encoded message
    byte[] original = new byte[N];
    byte[] given = in.consumeBytes(raw ? N : k);
    System.arraycopy(given, 0, original, 0, given.length);
    if (!raw) {
      code.encode(original, 0, original, k);
    }
    byte[] word = original.clone();
    int errorCount = in.consumeInt(0, roots + 2);
    for (int i = 0; i < errorCount; i++) {
      int p = in.consumeInt(0, N - 1);
      byte v = in.consumeByte();
      if (v != 0) {
        word[p] ^= v; // two changes of one byte may cancel: errorsOutside counts what differs
      }
    }
    int[] erasures = new int[in.consumeInt(0, roots + 2)];
    for (int i = 0; i < erasures.length; i++) {
      erasures[i] = in.consumeInt(0, N - 1);
    }
    byte[] before = word.clone();
    ParserContract.holds(
        N,
        () -> {
          int changed = DECODERS[roots].decode(word, 0, erasures, erasures.length);
          if (changed < 0) {
            assertThat(word).as("a refused word is left as it was").isEqualTo(before);
            if (!raw) {
              assertThat(2 * errorsOutside(original, before, erasures) + distinct(erasures))
                  .as("refused within capability")
                  .isGreaterThan(roots);
            }
            return;
          }
          byte[] parity = new byte[roots];
          code.encode(word, 0, parity, 0);
          assertThat(Arrays.copyOfRange(word, k, N)).as("a codeword").isEqualTo(parity);
          if (!raw && 2 * errorsOutside(original, before, erasures) + distinct(erasures) <= roots) {
            assertThat(word).as("the original, within capability").isEqualTo(original);
          }
        });
  }

  /** Positions where {@code word} differs from {@code original} and that are not erased. */
  private static int errorsOutside(byte[] original, byte[] word, int[] erasures) {
    BitSet erased = new BitSet(N);
    for (int e : erasures) {
      erased.set(e);
    }
    int n = 0;
    for (int p = 0; p < N; p++) {
      if (original[p] != word[p] && !erased.get(p)) {
        n++;
      }
    }
    return n;
  }

  private static int distinct(int[] erasures) {
    return (int) Arrays.stream(erasures).distinct().count();
  }
}
