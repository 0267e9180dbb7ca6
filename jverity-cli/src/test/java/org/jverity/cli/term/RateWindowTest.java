package org.jverity.cli.term;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The rate the progress bar shows: that of the last second, whatever came before. */
class RateWindowTest {
  static final long MS = 1_000_000L;

  @Test
  void aSlowFirstSecondDropsOutOfTheRate() {
    RateWindow w = new RateWindow(0);
    long done = 0;
    for (long t = 200; t <= 5000; t += 200) { // redrawn every 200 ms
      done += t <= 1000 ? 10_000_000 : 200_000_000; // 50 MB/s while the JIT warms up, then 1 GB/s
      w.add(t * MS, done);
    }
    assertThat(w.bytesPerSecond()).isCloseTo(1e9, within(1.0));
    // An average since the start would say 0.81 GB/s: what the old bar showed.
    assertThat(done / 5.0).isCloseTo(0.81e9, within(1.0));
  }

  @Test
  void earlyOnTheRateIsThatSinceTheStart() {
    RateWindow w = new RateWindow(0);
    w.add(200 * MS, 20_000_000);
    w.add(400 * MS, 60_000_000);
    assertThat(w.bytesPerSecond()).isCloseTo(150e6, within(1.0));
  }

  @Test
  void noRateFromTooShortASpan() {
    RateWindow w = new RateWindow(0);
    assertThat(w.bytesPerSecond()).isNegative();
    w.add(50 * MS, 1_000_000);
    assertThat(w.bytesPerSecond()).isNegative();
  }

  @Test
  void aStallShowsAsAFallingRate() {
    RateWindow w = new RateWindow(0);
    for (long t = 200; t <= 2000; t += 200) {
      w.add(t * MS, t * 1_000_000); // 1 GB/s
    }
    for (long t = 2200; t <= 2400; t += 200) {
      w.add(t * MS, 2_000_000_000L); // nothing more
    }
    assertThat(w.bytesPerSecond())
        .isCloseTo(0.6e9, within(1.0)); // 600 ms of work in the last second
    for (long t = 2600; t <= 3000; t += 200) {
      w.add(t * MS, 2_000_000_000L);
    }
    assertThat(w.bytesPerSecond()).isZero();
  }
}
