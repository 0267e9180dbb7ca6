package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.jverity.testing.TestImage;

/**
 * Issue 17, defects 4 and 6: {@link VerifiedSource}'s contract at its edges. A range is checked
 * before anything is allocated for it, and a read that fails leaves verified bytes or zeros in the
 * caller's array, never what the array held before.
 */
class ReadContractTest {
  private static final int BS = 4096;

  @Test
  void aBadRangeIsRefusedBeforeAnArrayIsAllocatedForIt() throws Exception {
    TestImage im = TestImage.random(8, BS, 176);
    try (VerifiedReader r =
            Readers.open(im, im.dataDevice(), im.hashDevice(), ReaderOptions.DEFAULTS);
        HashingPool pool = new HashingPool(1);
        VerificationScheduler s = new VerificationScheduler(r, pool)) {
      for (VerifiedSource source : new VerifiedSource[] {r, s}) {
        assertThatThrownBy(() -> source.read(0, Integer.MAX_VALUE))
            .isInstanceOf(EOFException.class)
            .hasMessageContaining("outside the image");
        assertThatThrownBy(() -> source.read(Long.MAX_VALUE - 2, 1 << 30))
            .isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> source.read(0, -1))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("length: -1 (expected: >= 0)");
        assertThat(source.read(8 * BS, 0)).isEmpty();
      }
    }
  }

  /**
   * A request the pool has not started when its caller is interrupted is cancelled without being
   * read: its part of the caller's array is zeroed, as that of a piece stopped midway is.
   */
  @Test
  void aPieceCancelledByAnInterruptIsZeroedNotLeftAsTheCallerHadIt() throws Exception {
    TestImage im = TestImage.random(64, BS, 177);
    try (VerifiedReader r =
            Readers.open(im, im.dataDevice(), im.hashDevice(), ReaderOptions.DEFAULTS);
        HashingPool pool = new HashingPool(1);
        VerificationScheduler s = new VerificationScheduler(r, pool)) {
      s.setInlineLimit(IoClass.BEST_EFFORT, 0); // every request goes to the pool
      CountDownLatch gate = new CountDownLatch(1);
      pool.execute( // the pool's one thread is busy until the gate opens
          () -> {
            try {
              gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      byte[] dst = new byte[2 * BS];
      Arrays.fill(dst, (byte) 0x5A);
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      Thread caller =
          Thread.ofPlatform()
              .start(
                  () -> {
                    Thread.currentThread().interrupt();
                    try {
                      s.read(5 * BS, dst, 0, dst.length, IoClass.BEST_EFFORT);
                    } catch (Throwable t) {
                      thrown.set(t);
                    }
                  });
      long until = System.nanoTime() + 10_000_000_000L;
      while (!waitsForItsPieces(caller) && System.nanoTime() < until) {
        Thread.sleep(1); // the caller, interrupted, waits for its queued piece
      }
      gate.countDown();
      caller.join(10_000);
      assertThat(thrown.get()).isInstanceOf(InterruptedIOException.class);
      assertThat(dst).as("the caller's old bytes").containsOnly(0);
    }
  }

  private static boolean waitsForItsPieces(Thread t) {
    return t.getState() == Thread.State.WAITING
        && Arrays.stream(t.getStackTrace())
            .anyMatch(f -> f.getMethodName().equals("awaitAndRethrow"));
  }
}
