package org.jverity.fec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.jverity.io.MemoryDevice;
import org.jverity.testing.DeviceWrapper;

/**
 * One message block corrected from its round: rows, parity, erasures, zeros past T, the round
 * cache.
 */
class FecCorrectorTest {

  @Test
  void aCleanBlockComesBackAsItIs() throws Exception {
    FecImage f = FecImage.of(300, 512, 4, 1);
    FecCorrector c = f.corrector();
    for (long m : new long[] {0, 1, 299, 300, f.layout().messageBlocks() - 1}) {
      assertThat(c.correct(m, new long[0])).isEqualTo(f.original(m));
    }
  }

  @Test
  void wholeBlocksUpToHalfTheRootsPerRoundAreCorrected() throws Exception {
    FecImage f = FecImage.of(300, 512, 6, 2);
    FecLayout l = f.layout();
    SplittableRandom rnd = new SplittableRandom(2);
    long last = l.messageBlocks() - 1; // a hash block
    long[] bad = {
      l.round(last), l.round(last) + l.rounds() * 40, l.round(last) + l.rounds() * 100, last
    };
    for (int i = 0; i < 3; i++) {
      f.corruptWhole(bad[i + 1], rnd);
    }
    FecCorrector c = f.corrector();
    for (long m : bad) {
      assertThat(c.correct(m, new long[0])).isEqualTo(f.original(m));
    }
    assertThat(c.roundsDecoded()).isEqualTo(1); // neighbours in one round decode it once
  }

  @Test
  void erasuresDoubleWhatCanBeCorrected() throws Exception {
    FecImage f = FecImage.of(300, 512, 4, 3);
    FecLayout l = f.layout();
    SplittableRandom rnd = new SplittableRandom(3);
    long[] bad = {7, 7 + l.rounds(), 7 + 2 * l.rounds(), 7 + 3 * l.rounds()};
    for (long m : bad) {
      f.corruptWhole(m, rnd);
    }
    FecCorrector c = f.corrector();
    assertThat(c.correct(7, new long[0])).isNull();
    assertThat(c.correct(7, new long[] {bad[0], bad[1]})).isNull(); // 2 erasures + 2 errors > 4
    for (long m : bad) {
      assertThat(c.correct(m, bad)).isEqualTo(f.original(m));
    }
    assertThat(c.correct(8, bad))
        .isEqualTo(f.original(8)); // another round: those erasures are ignored
    long[] five = {bad[0], bad[1], bad[2], bad[3], 7 + 4 * l.rounds()};
    assertThat(c.correct(7, five)).isNull(); // more erasures than roots
  }

  @Test
  void aBlockThatFailsToReadIsAnErasure() throws Exception {
    FecImage f = FecImage.of(300, 512, 2, 4);
    FecLayout l = f.layout();
    SplittableRandom rnd = new SplittableRandom(4);
    long unreadable = 5 + 10 * l.rounds();
    f.corruptWhole(5, rnd);
    var data =
        new DeviceWrapper.Failing(f.image().dataDevice(), unreadable * 512, unreadable * 512 + 1);
    FecCorrector c = new FecCorrector(l, data, f.image().hashDevice(), f.fecDevice());
    assertThat(c.correct(5, new long[0])).isNull(); // 1 erasure + 1 error > 2 roots
    assertThat(c.correct(5, new long[] {5})).isEqualTo(f.original(5));
    assertThat(c.correct(unreadable, new long[] {5}))
        .isEqualTo(f.original(unreadable)); // and the unreadable one
    assertThat(c.readFailures()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void aCorrectionLandingInTheZerosPastTheEndIsRefused() throws Exception {
    // 2 rounds; the last rows of round 1 are past T. A block zeroed in round 0 is read as is.
    FecImage f = FecImage.of(300, 512, 2, 5);
    FecLayout l = f.layout();
    assertThat(l.messageIndex(1, l.messageLength() - 1)).isGreaterThanOrEqualTo(l.messageBlocks());
    FecCorrector c = f.corrector();
    assertThat(c.correct(1, new long[0])).isEqualTo(f.original(1));
    assertThat(c.correct(l.messageBlocks() - 1, new long[0]))
        .isEqualTo(f.original(l.messageBlocks() - 1));
  }

  @Test
  void unreadableParityMeansUncorrectable() throws Exception {
    FecImage f = FecImage.of(100, 512, 4, 6);
    var fec = new DeviceWrapper.Failing(new MemoryDevice("fec", f.parity()), 0, 1);
    FecCorrector c =
        new FecCorrector(f.layout(), f.image().dataDevice(), f.image().hashDevice(), fec);
    assertThat(c.correct(0, new long[0])).isNull();
  }

  @Test
  void theCacheIsBoundedAndStillCorrect() throws Exception {
    FecImage f = FecImage.of(600, 512, 2, 7); // several rounds
    FecLayout l = f.layout();
    FecCorrector c =
        new FecCorrector(l, f.image().dataDevice(), f.image().hashDevice(), f.fecDevice(), 0);
    for (int pass = 0; pass < 2; pass++) {
      for (long r = 0; r < l.rounds(); r++) {
        assertThat(c.correct(r, new long[0])).isEqualTo(f.original(r));
      }
    }
    assertThat(c.roundsDecoded())
        .isEqualTo(2 * l.rounds()); // one round kept: every change of round decodes
  }

  @Test
  void threadsCorrectingOneRoundAtOnceShareOneDecode() throws Exception {
    FecImage f = FecImage.of(600, 4096, 8, 12);
    FecLayout l = f.layout();
    SplittableRandom rnd = new SplittableRandom(12);
    long[] bad = {2, 2 + l.rounds() * 10, 2 + l.rounds() * 20, 2 + l.rounds() * 30};
    for (long m : bad) {
      f.corruptWhole(m, rnd);
    }
    var slowParity =
        new DeviceWrapper.Slow(f.fecDevice(), 20_000); // all threads arrive during the decode
    FecCorrector c =
        new FecCorrector(l, f.image().dataDevice(), f.image().hashDevice(), slowParity);
    var start = new java.util.concurrent.CountDownLatch(1);
    try (var pool = java.util.concurrent.Executors.newFixedThreadPool(bad.length)) {
      var results = new java.util.ArrayList<java.util.concurrent.Future<byte[]>>();
      for (long m : bad) {
        results.add(
            pool.submit(
                () -> {
                  start.await();
                  return c.correct(m, new long[0]);
                }));
      }
      start.countDown();
      for (int i = 0; i < bad.length; i++) {
        assertThat(results.get(i).get()).isEqualTo(f.original(bad[i]));
      }
    }
    assertThat(c.roundsDecoded()).isEqualTo(1);
  }

  @Test
  void aSingleBadBlockOfARoundIsTheXorOfTheRest() throws Exception {
    for (int roots : new int[] {2, 3, 16}) {
      FecImage f = FecImage.of(600, 4096, roots, 6);
      FecLayout l = f.layout();
      SplittableRandom rnd = new SplittableRandom(6);
      long m = 3 + 2 * l.rounds();
      f.corruptWhole(m, rnd);
      FecCorrector c = f.corrector();
      assertThat(c.correctSingleErasure(m)).isEqualTo(f.original(m));
      assertThat(c.roundsDecoded()).isZero(); // no codeword decoded
      long hashBlock = l.messageBlocks() - 1; // the last hash device block, alone in its round
      f.corruptWhole(hashBlock, rnd);
      assertThat(c.correctSingleErasure(hashBlock)).isEqualTo(f.original(hashBlock));
      f.corruptWhole(m + l.rounds(), rnd); // a second bad block in m's round: the XOR is wrong
      FecCorrector after = f.corrector(); // (the devices are snapshots)
      assertThat(after.correctSingleErasure(m)).isNotEqualTo(f.original(m));
      assertThat(after.correct(m, new long[] {m, m + l.rounds()})).isEqualTo(f.original(m));
    }
  }

  @Test
  void screeningDecodesOnlyDirtyCodewordsAndCanMissWhatTheFullDecodeFinds() throws Exception {
    FecImage f = FecImage.of(600, 4096, 8, 7);
    FecLayout l = f.layout();
    SplittableRandom rnd = new SplittableRandom(7);
    long a = 5;
    long b = 5 + 3 * l.rounds(); // same round
    f.corruptBytes(a, 20, rnd);
    f.corruptBytes(b, 20, rnd);
    FecCorrector c = f.corrector();
    assertThat(c.correctScreened(a, new long[0])).isEqualTo(f.original(a));
    assertThat(c.correctScreened(b, new long[0])).isEqualTo(f.original(b));
    // Two errors in one codeword that XOR to zero: screening takes it as clean, the full decode
    // fixes it.
    byte[] blockA = f.arrayOf(a);
    byte[] blockB = f.arrayOf(b);
    int at = 1000;
    blockA[f.offsetOf(a) + at] ^= 0x33;
    blockB[f.offsetOf(b) + at] ^= 0x33;
    FecCorrector fresh = f.corrector();
    assertThat(fresh.correctScreened(a, new long[0])).isNotEqualTo(f.original(a));
    assertThat(fresh.correct(a, new long[0])).isEqualTo(f.original(a));
  }
}
