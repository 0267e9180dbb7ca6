package org.jverity.fec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Errors and erasures within 2e + f ≤ roots come back; beyond, never a non-codeword reported as
 * success.
 */
class ReedSolomonDecoderTest {

  /** A random codeword of RS(255, 255 − roots), encoded by the reference encoder. */
  static byte[] codeword(int roots, SplittableRandom rnd) {
    ReedSolomon rs = new ReedSolomon(roots);
    byte[] cw = new byte[ReedSolomon.N];
    for (int i = 0; i < rs.messageLength(); i++) {
      cw[i] = (byte) rnd.nextInt(256);
    }
    rs.encode(cw, 0, cw, rs.messageLength());
    return cw;
  }

  /** {@code n} distinct positions 0..254. */
  static int[] positions(int n, SplittableRandom rnd) {
    int[] all = new int[ReedSolomon.N];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    for (int i = 0; i < n; i++) { // partial Fisher–Yates
      int j = i + rnd.nextInt(all.length - i);
      int t = all[i];
      all[i] = all[j];
      all[j] = t;
    }
    return Arrays.copyOf(all, n);
  }

  /** Every syndrome S_j = c(α^j), j < roots, is zero: recomputed here the slow way. */
  static boolean syndromesZero(byte[] cw, int roots) {
    for (int j = 0; j < roots; j++) {
      int v = 0;
      for (int p = 0; p < ReedSolomon.N; p++) {
        v = GaloisField.mul(v, GaloisField.exp(j)) ^ (cw[p] & 0xff);
      }
      if (v != 0) {
        return false;
      }
    }
    return true;
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 8, 16, 24})
  void aCodewordDecodesToItselfWithZeroCorrections(int roots) {
    byte[] cw = codeword(roots, new SplittableRandom(roots));
    byte[] copy = cw.clone();
    ReedSolomonDecoder d = new ReedSolomonDecoder(roots);
    assertThat(d.decode(cw, 0)).isZero();
    assertThat(d.decode(cw, 0, new int[] {0, 7, 254}, Math.min(3, roots))).isZero();
    assertThat(cw).isEqualTo(copy);
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 8, 16, 24})
  void correctsUpToHalfTheRootsInErrorsAtAnyOffset(int roots) {
    SplittableRandom rnd = new SplittableRandom(100 + roots);
    ReedSolomonDecoder d = new ReedSolomonDecoder(roots);
    for (int trial = 0; trial < 50; trial++) {
      byte[] cw = codeword(roots, rnd);
      byte[] buf = new byte[300];
      System.arraycopy(cw, 0, buf, 17, cw.length);
      int[] at = positions(roots / 2, rnd);
      for (int p : at) {
        buf[17 + p] ^= (byte) (1 + rnd.nextInt(255));
      }
      assertThat(d.decode(buf, 17)).isEqualTo(at.length);
      assertThat(Arrays.copyOfRange(buf, 17, 17 + 255)).isEqualTo(cw);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 8, 24})
  void correctsAsManyErasuresAsRoots(int roots) {
    SplittableRandom rnd = new SplittableRandom(200 + roots);
    ReedSolomonDecoder d = new ReedSolomonDecoder(roots);
    byte[] cw = codeword(roots, rnd);
    byte[] bad = cw.clone();
    int[] at = positions(roots, rnd);
    for (int p : at) {
      bad[p] ^= (byte) (1 + rnd.nextInt(255));
    }
    assertThat(d.decode(bad, 0, at, at.length)).isEqualTo(roots);
    assertThat(bad).isEqualTo(cw);
  }

  @Test
  void oneErrorTooManyWithRootsTwoIsMiscorrectedOrRefusedButNeverLeftBroken() {
    SplittableRandom rnd = new SplittableRandom(5);
    ReedSolomonDecoder d = new ReedSolomonDecoder(2);
    for (int trial = 0; trial < 200; trial++) {
      byte[] cw = codeword(2, rnd);
      byte[] bad = cw.clone();
      for (int p : positions(2, rnd)) {
        bad[p] ^= (byte) (1 + rnd.nextInt(255));
      }
      byte[] before = bad.clone();
      int n = d.decode(bad, 0);
      if (n < 0) {
        assertThat(bad).isEqualTo(before);
      } else {
        assertThat(syndromesZero(bad, 2)).isTrue();
      }
    }
  }

  @Test
  void erasuresAreCheckedAndDuplicatesCountOnce() {
    ReedSolomonDecoder d = new ReedSolomonDecoder(4);
    byte[] cw = codeword(4, new SplittableRandom(9));
    byte[] bad = cw.clone();
    bad[3] ^= 1;
    assertThatThrownBy(() -> d.decode(bad, 0, new int[] {255}, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(d.decode(bad, 0, new int[] {3, 3, 3, 3, 3}, 5)).isEqualTo(1);
    assertThat(bad).isEqualTo(cw);
    bad[3] ^= 1;
    assertThat(d.decode(bad, 0, new int[] {1, 2, 3, 4, 5}, 5))
        .isEqualTo(-1); // 5 unknowns, 4 parity bytes
  }

  /** Within capability: the original comes back, and the count is the bytes that were wrong. */
  @Property(tries = 400)
  void errorsAndErasuresWithinCapabilityAreCorrected(
      @ForAll @IntRange(min = 2, max = 24) int roots,
      @ForAll @IntRange(min = 0, max = 24) int errorsWanted,
      @ForAll @IntRange(min = 0, max = 24) int erasuresWanted,
      @ForAll @IntRange(min = 0, max = 24) int falseErasuresWanted,
      @ForAll long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int f = Math.min(erasuresWanted, roots); // wrong and erased
    int g = Math.min(falseErasuresWanted, roots - f); // erased but right
    int e = Math.min(errorsWanted, (roots - f - g) / 2); // wrong, not erased
    byte[] cw = codeword(roots, rnd);
    byte[] bad = cw.clone();
    int[] at = positions(e + f + g, rnd);
    for (int i = 0; i < e + f; i++) {
      bad[at[i]] ^= (byte) (1 + rnd.nextInt(255));
    }
    int[] erasures = Arrays.copyOfRange(at, e, e + f + g);
    int n = new ReedSolomonDecoder(roots).decode(bad, 0, erasures, erasures.length);
    assertThat(n).isEqualTo(e + f);
    assertThat(bad).isEqualTo(cw);
  }

  /** Beyond capability: -1 with the word untouched, or (rarely) some other codeword. */
  @Property(tries = 400)
  void beyondCapabilityNeverReportsANonCodewordAsDecoded(
      @ForAll @IntRange(min = 2, max = 24) int roots,
      @ForAll @IntRange(min = 0, max = 24) int erasuresWanted,
      @ForAll @IntRange(min = 1, max = 40) int extra,
      @ForAll long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int f = Math.min(erasuresWanted, roots);
    int e = (roots - f) / 2 + extra; // 2e + f > roots
    byte[] cw = codeword(roots, rnd);
    byte[] bad = cw.clone();
    int[] at = positions(e + f, rnd);
    for (int p : at) {
      bad[p] ^= (byte) (1 + rnd.nextInt(255));
    }
    byte[] before = bad.clone();
    int n = new ReedSolomonDecoder(roots).decode(bad, 0, Arrays.copyOfRange(at, e, e + f), f);
    if (n < 0) {
      assertThat(bad).isEqualTo(before);
    } else {
      assertThat(syndromesZero(bad, roots)).isTrue();
      assertThat(bad).isNotEqualTo(cw); // too many changes to land back on the original
    }
  }
}
