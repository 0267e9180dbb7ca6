package org.jverity.fec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.jverity.io.MemoryDevice;

/**
 * The parallel encoder against the one-codeword reference ({@link ReedSolomon#encode}) applied to
 * the layout's definition of each codeword, over layouts whose rows cross from data to hash device
 * to zeros, whose hash device ends before the FEC offset, and whose last task is partial.
 */
class FecEncoderTest {

  /**
   * The parity of {@code layout} as the definition in {@link FecLayout} spells it, one codeword at
   * a time.
   */
  static byte[] reference(FecLayout layout, byte[] data, byte[] hash) {
    ReedSolomon rs = new ReedSolomon(layout.roots());
    int b = layout.blockSize();
    int k = layout.messageLength();
    byte[] out = new byte[Math.toIntExact(layout.paritySize())];
    byte[] msg = new byte[k];
    for (long r = 0; r < layout.rounds(); r++) {
      for (int x = 0; x < b; x++) {
        for (int i = 0; i < k; i++) {
          long m = layout.messageIndex(r, i);
          long at;
          byte[] src;
          if (m >= layout.messageBlocks()) {
            src = null;
            at = 0;
          } else if (layout.isData(m)) {
            src = data;
            at = m * b + x;
          } else {
            src = hash;
            at = layout.hashBlockOf(m) * b + x;
          }
          msg[i] = src == null || at >= src.length ? 0 : src[(int) at];
        }
        rs.encode(
            msg,
            0,
            out,
            (int) ((layout.parityOffset(r) - layout.fecOffset()) + (long) x * layout.roots()));
      }
    }
    return out;
  }

  static byte[] encode(FecLayout layout, byte[] data, byte[] hash, int threads) throws Exception {
    MemoryDevice fec = new MemoryDevice("fec");
    FecEncoder.of(layout)
        .withThreads(threads)
        .encode(new MemoryDevice("data", data), new MemoryDevice("hash", hash), fec);
    byte[] all = fec.toByteArray();
    assertThat(all.length).isEqualTo(layout.fecOffset() + layout.paritySize());
    return java.util.Arrays.copyOfRange(all, (int) layout.fecOffset(), all.length);
  }

  static byte[] random(long seed, int n) {
    byte[] b = new byte[n];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }

  @ParameterizedTest(name = "roots {0}")
  @ValueSource(ints = {2, 3, 7, 8, 9, 16, 17, 24})
  void matchesTheReferenceForEveryRegisterWordCount(int roots) throws Exception {
    // 700 data + 13 hash blocks (from hash block 1): R = ⌈713 / k⌉ = 3 or 4 rounds, the last
    // rows crossing data → hash → zeros.
    FecLayout layout = new FecLayout(512, roots, 700, 1, 13, 4096);
    byte[] data = random(roots, 700 * 512);
    byte[] hash = random(~roots, 14 * 512);
    byte[] want = reference(layout, data, hash);
    assertThat(encode(layout, data, hash, 1)).isEqualTo(want);
    assertThat(encode(layout, data, hash, 3)).isEqualTo(want);
  }

  @Test
  void hashBlocksPastTheHashDeviceEndReadAsZeros() throws Exception {
    FecLayout layout =
        new FecLayout(1024, 2, 300, 1, 40, 41 * 1024); // hash device only 10 blocks long
    byte[] data = random(1, 300 * 1024);
    byte[] hash = random(2, 10 * 1024);
    assertThat(encode(layout, data, hash, 2)).isEqualTo(reference(layout, data, hash));
  }

  @Test
  void manyTasksAndAPartialLastTask() throws Exception {
    // 4300 blocks of 512 at roots 2: R = 17 rounds, 2 per task: 9 tasks, the last with one.
    FecLayout layout = new FecLayout(512, 2, 4290, 0, 10, 0);
    byte[] data = random(3, 4290 * 512);
    byte[] hash = random(4, 10 * 512);
    FecEncoder e = FecEncoder.of(layout).withThreads(3);
    assertThat(layout.rounds() % e.roundsPerTask()).isNotZero();
    assertThat(encode(layout, data, hash, 3)).isEqualTo(reference(layout, data, hash));
  }

  @Property(tries = 40)
  void anyLayoutMatchesTheReference(
      @ForAll @IntRange(min = 2, max = 24) int roots,
      @ForAll @IntRange(min = 1, max = 600) int dataBlocks,
      @ForAll @IntRange(min = 0, max = 40) int hashBlocks,
      @ForAll @IntRange(min = 1, max = 4) int threads)
      throws Exception {
    FecLayout layout = new FecLayout(512, roots, dataBlocks, 1, hashBlocks, 0);
    byte[] data = random(dataBlocks, dataBlocks * 512);
    byte[] hash = random(hashBlocks, (hashBlocks + 1) * 512);
    assertThat(encode(layout, data, hash, threads)).isEqualTo(reference(layout, data, hash));
  }

  @Test
  void progressCountsEveryFedByte() throws Exception {
    FecLayout layout = new FecLayout(512, 4, 1000, 0, 0, 0);
    java.util.concurrent.atomic.AtomicLong seen = new java.util.concurrent.atomic.AtomicLong();
    FecEncoder e = FecEncoder.of(layout).withThreads(2).withProgress(seen::addAndGet);
    e.encode(
        new MemoryDevice("data", new byte[1000 * 512]),
        new MemoryDevice("hash"),
        new MemoryDevice("fec"));
    assertThat(seen.get()).isEqualTo(e.workBytes()).isEqualTo(layout.rounds() * 251 * 512);
  }
}
