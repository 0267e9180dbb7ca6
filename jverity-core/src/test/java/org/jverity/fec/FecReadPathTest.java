package org.jverity.fec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.VerifiedReader;

/**
 * FEC through the verified read path: corrupt data and hash blocks, read through {@link
 * VerifiedReader} with a {@link FecRepairer}; within the code's capability reads return the
 * original bytes, beyond it they fail with {@link CorruptBlockException}, and never return a wrong
 * byte.
 */
class FecReadPathTest {

  /**
   * Blocks to corrupt: {@code candidates} in order, each taken only while its round holds at most
   * {@code perRound} corrupted blocks.
   */
  static List<Long> pick(FecLayout l, int perRound, long... candidates) {
    Map<Long, Integer> count = new HashMap<>();
    List<Long> out = new ArrayList<>();
    for (long m : candidates) {
      if (m < 0
          || m >= l.messageBlocks()
          || out.contains(m)
          || count.getOrDefault(l.round(m), 0) >= perRound) {
        continue;
      }
      count.merge(l.round(m), 1, Integer::sum);
      out.add(m);
    }
    return out;
  }

  /**
   * The last block (a hash block), the top hash block, data blocks of the last block's round, of
   * round 0 and of round 1.
   */
  static long[] candidates(FecLayout l) {
    long t = l.messageBlocks();
    long r = l.rounds();
    long[] c = new long[2 + 3 * 24];
    c[0] = t - 1;
    c[1] = l.dataBlocks(); // the first block of the hash device: the top of the tree
    for (int j = 1; j <= 24; j++) {
      c[1 + j] = t - 1 - r * 7 * j;
      c[25 + j] = r * 5 * (j - 1);
      c[49 + j] = 1 + r * 3 * (j - 1);
    }
    return c;
  }

  static void assertReadsAll(FecImage f, VerifiedReader r) throws Exception {
    assertThat(r.read(0, f.pristineData().length)).isEqualTo(f.pristineData());
  }

  @ParameterizedTest(name = "roots {0}, {1}-byte blocks")
  @CsvSource({"2, 512", "3, 512", "8, 512", "24, 512", "2, 4096", "3, 4096", "8, 4096", "24, 4096"})
  void dataAndHashBlocksUpToHalfTheRootsPerRoundAreCorrected(int roots, int blockSize)
      throws Exception {
    FecImage f =
        FecImage.of(blockSize == 512 ? 1200 : 600, blockSize, roots, roots * 10L + blockSize);
    List<Long> bad = pick(f.layout(), roots / 2, candidates(f.layout()));
    assertThat(bad).anyMatch(m -> !f.layout().isData(m)).anyMatch(f.layout()::isData);
    SplittableRandom rnd = new SplittableRandom(roots);
    for (long m : bad) {
      f.corruptWhole(m, rnd);
    }
    FecRepairer fec = f.repairer();
    try (VerifiedReader r = f.reader(fec)) {
      assertReadsAll(f, r);
      assertThat(r.repairedCount()).isEqualTo(bad.size());
      assertThat(r.corruptionCount()).isZero();
      assertThat(fec.correctedCount()).isEqualTo(bad.size());
      assertThat(fec.failedCount()).isZero();
    }
  }

  @ParameterizedTest(name = "roots {0}")
  @CsvSource({"3", "5", "7"})
  void withTheFailingBlockErasedOneMoreBlockPerRoundIsCorrected(int roots) throws Exception {
    FecImage f = FecImage.of(600, 512, roots, roots);
    FecLayout l = f.layout();
    List<Long> bad = pick(l, (roots + 1) / 2, candidates(l));
    assertThat(bad.stream().filter(m -> l.round(m) == l.round(l.messageBlocks() - 1)))
        .hasSize((roots + 1) / 2);
    SplittableRandom rnd = new SplittableRandom(roots);
    for (long m : bad) {
      f.corruptWhole(m, rnd);
    }
    FecRepairer fec = f.repairer();
    try (VerifiedReader r = f.reader(fec)) {
      assertReadsAll(f, r);
      assertThat(r.repairedCount()).isEqualTo(bad.size());
      assertThat(r.corruptionCount()).isZero();
    }
  }

  @Test
  void blocksThatFailedBeforeBecomeErasuresForTheirNeighbours() throws Exception {
    FecImage f = FecImage.of(600, 512, 8, 8);
    FecLayout l = f.layout();
    long[] bad = new long[6]; // 6 whole blocks of round 1: beyond 8 / 2 without erasures
    SplittableRandom rnd = new SplittableRandom(8);
    for (int i = 0; i < bad.length; i++) {
      bad[i] = 1 + l.rounds() * 20 * i;
      f.corruptWhole(bad[i], rnd);
    }
    FecRepairer fec = f.repairer();
    try (VerifiedReader r = f.reader(fec)) {
      int failed = 0;
      for (long m : bad) {
        try {
          assertThat(r.read(m * 512, 512)).isEqualTo(f.original(m));
        } catch (CorruptBlockException e) {
          assertThat(e.block()).isEqualTo(m);
          failed++;
        }
      }
      assertThat(failed)
          .isBetween(1, 5); // the first ones fail; once enough are known bad, the rest correct
      for (long m : bad) { // now every one of them is a known erasure
        assertThat(r.read(m * 512, 512)).isEqualTo(f.original(m));
      }
      assertThat(r.repairedCount()).isEqualTo(2L * bad.length - failed);
    }
  }

  @Test
  void beyondCapabilityReadsFailAndNeverReturnAWrongByte() throws Exception {
    FecImage f = FecImage.of(600, 512, 2, 9);
    FecLayout l = f.layout();
    long[] bad = {
      3, 3 + l.rounds() * 50, 3 + l.rounds() * 100
    }; // 3 whole blocks of one round, roots 2
    SplittableRandom rnd = new SplittableRandom(9);
    for (long m : bad) {
      f.corruptWhole(m, rnd);
    }
    FecRepairer fec = f.repairer();
    try (VerifiedReader r = f.reader(fec)) {
      for (int pass = 0; pass < 2; pass++) {
        for (long m : bad) {
          assertThatThrownBy(() -> r.read(m * 512, 512)).isInstanceOf(CorruptBlockException.class);
        }
      }
      assertThat(r.read(4 * 512, 512)).isEqualTo(f.original(4));
      assertThat(r.repairedCount()).isZero();
      assertThat(r.corruptionCount()).isEqualTo(6);
    }
  }

  @Test
  void aBlockThatFailsToReadCountsAsAnErasure() throws Exception {
    FecImage f = FecImage.of(600, 512, 3, 10);
    FecLayout l = f.layout();
    long unreadable = 2 + l.rounds() * 30;
    f.corruptWhole(2, new SplittableRandom(10));
    var data =
        new org.jverity.testing.DeviceWrapper.Failing(
            f.image().dataDevice(), unreadable * 512, unreadable * 512 + 1);
    FecRepairer fec =
        new FecRepairer(new FecCorrector(l, data, f.image().hashDevice(), f.fecDevice()));
    try (VerifiedReader r =
        VerifiedReader.open(
            f.image().params(),
            f.image().dataDevice(),
            f.image().hashDevice(),
            f.image().root(),
            new org.jverity.verify.HashBlockCache(1 << 20),
            org.jverity.verify.ReaderOptions.DEFAULTS.withRepairer(fec))) {
      assertThat(r.read(2 * 512, 512))
          .isEqualTo(f.original(2)); // 1 erasure (unreadable) + 1 erasure (itself) ≤ 3
      assertThat(fec.corrector().readFailures()).isPositive();
    }
  }

  /**
   * Random corruption patterns, within and beyond capability: every read returns the original bytes
   * or throws CorruptBlockException; when no round holds more than roots / 2 corrupted blocks,
   * every read returns.
   */
  @Property(tries = 100)
  void everyReadIsTheOriginalOrFails(
      @ForAll @IntRange(min = 0, max = 3) int rootsChoice,
      @ForAll @IntRange(min = 0, max = 10) int corrupted,
      @ForAll long seed)
      throws Exception {
    int roots = new int[] {2, 3, 4, 8}[rootsChoice];
    FecImage f = FecImage.of(300, 512, roots, seed);
    FecLayout l = f.layout();
    SplittableRandom rnd = new SplittableRandom(seed);
    Map<Long, Integer> perRound = new HashMap<>();
    List<Long> bad = new ArrayList<>();
    for (int i = 0; i < corrupted; i++) {
      long m = rnd.nextLong(l.messageBlocks());
      if (bad.contains(m)) {
        continue;
      }
      bad.add(m);
      perRound.merge(l.round(m), 1, Integer::sum);
      if (rnd.nextBoolean()) {
        f.corruptWhole(m, rnd);
      } else {
        f.corruptBytes(m, 1 + rnd.nextInt(8), rnd);
      }
    }
    boolean within = perRound.values().stream().allMatch(c -> 2 * c <= roots);
    int blocks = (int) l.dataBlocks();
    try (VerifiedReader r = f.reader(f.repairer())) {
      int failures = 0;
      for (long b = 0; b < blocks; b++) {
        try {
          assertThat(r.read(b * 512, 512)).isEqualTo(f.original(b));
        } catch (CorruptBlockException e) {
          failures++;
        }
      }
      if (within) {
        assertThat(failures).as("corrupted %s, roots %d", bad, roots).isZero();
        assertThat(r.corruptionCount()).isZero();
      }
    }
  }

  @Test
  void allBlocksOfARoundCanBeReadAfterOneCorrection() throws Exception {
    FecImage f = FecImage.of(600, 512, 4, 11);
    FecLayout l = f.layout();
    long[] bad = {0, l.rounds() * 9};
    SplittableRandom rnd = new SplittableRandom(11);
    for (long m : bad) {
      f.corruptWhole(m, rnd);
    }
    FecRepairer fec = f.repairer();
    try (VerifiedReader r = f.reader(fec)) {
      for (long m : bad) {
        assertThat(r.read(m * 512, 512)).isEqualTo(f.original(m));
      }
      assertThat(fec.corrector().roundsDecoded())
          .isEqualTo(1); // the neighbour reused the decoded round
      assertThat(Arrays.asList(fec.correctedCount(), fec.failedCount())).containsExactly(2L, 0L);
    }
  }
}
