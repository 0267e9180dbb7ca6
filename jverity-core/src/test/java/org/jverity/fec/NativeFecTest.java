package org.jverity.fec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The native Reed-Solomon accumulation gives the Java loops' parity at every root count (one to
 * three packed words), through feed and feed2; and the build made it here (the test command
 * installs gcc and libssl-dev, so its absence is a failure, not a skip).
 */
class NativeFecTest {
  @Test
  void theBuildMadeTheLoopAndItPassedItsSelfTest() {
    assertThat(NativeFec.available())
        .as("native FEC loop: %s", FecEncoder.parityNote().orElse("?"))
        .isTrue();
    assertThat(new PackedInterleaved.Tables(new ReedSolomon(2)).packed).isNotNull();
    assertThat(new PackedInterleaved.Tables(new ReedSolomon(2), false).packed).isNull();
  }

  @Property(tries = 40)
  void parityIsTheJavaLoopsParity(
      @ForAll @IntRange(min = ReedSolomon.MIN_ROOTS, max = ReedSolomon.MAX_ROOTS) int roots,
      @ForAll @IntRange(min = 1, max = 300) int width,
      @ForAll long seed) {
    ReedSolomon rs = new ReedSolomon(roots);
    PackedInterleaved viaNative = new PackedInterleaved(new PackedInterleaved.Tables(rs), width);
    PackedInterleaved viaJava =
        new PackedInterleaved(new PackedInterleaved.Tables(rs, false), width);
    int k = rs.messageLength();
    byte[] message = new byte[k * width];
    new SplittableRandom(seed).nextBytes(message);
    for (PackedInterleaved cw : new PackedInterleaved[] {viaNative, viaJava}) {
      cw.reset();
      int i = 0;
      for (; i + 1 < k; i += 2) {
        cw.feed2(message, i * width, (i + 1) * width);
      }
      if (i < k) {
        cw.feed(message, i * width);
      }
    }
    byte[] a = new byte[width * roots];
    byte[] b = new byte[width * roots];
    viaNative.parity(a, 0);
    viaJava.parity(b, 0);
    assertThat(a).isEqualTo(b);
    // and both are the shift register's, codeword by codeword
    byte[] codeword = new byte[k];
    byte[] parity = new byte[roots];
    for (int w = 0; w < width; w += Math.max(1, width / 5)) {
      for (int j = 0; j < k; j++) {
        codeword[j] = message[j * width + w];
      }
      rs.encode(codeword, 0, parity, 0);
      assertThat(Arrays.copyOfRange(a, w * roots, (w + 1) * roots)).isEqualTo(parity);
    }
  }
}
