package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The read buffers' budget: reuse, room made from kept buffers, waiting, trimming. */
class ReadBuffersTest {
  @Test
  void aBufferGivenBackIsTheNextOneOfItsLengthAndStaysWithinTheBudget() {
    ReadBuffers buffers = new ReadBuffers(1 << 20);
    byte[] a = buffers.take(256 << 10);
    buffers.give(a);
    assertThat(buffers.take(256 << 10)).isSameAs(a);
    assertThat(buffers.held()).isEqualTo(256 << 10);
    buffers.give(a);
    buffers.trim();
    assertThat(buffers.held()).isZero();
    assertThat(buffers.take(256 << 10)).isNotSameAs(a);
  }

  @Test
  void keptBuffersOfOtherLengthsMakeRoomAndALengthPastTheBudgetTakesAllOfIt() {
    ReadBuffers buffers = new ReadBuffers(1 << 20);
    List<byte[]> kept = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      kept.add(buffers.take(256 << 10));
    }
    kept.forEach(buffers::give); // the whole budget is kept, as 256 KiB buffers
    byte[] big = buffers.take(4 << 20); // longer than the budget: it waits for none of them
    assertThat(big).hasSize(4 << 20);
    assertThat(buffers.held()).isEqualTo(1 << 20);
    buffers.give(big);
  }

  @Test
  void manyRequestsOfMixedLengthsNeverHoldMoreThanTheBudgetAndAllFinish() throws Exception {
    long budget = 1 << 20;
    ReadBuffers buffers = new ReadBuffers(budget);
    AtomicLong inUse = new AtomicLong();
    AtomicLong peak = new AtomicLong();
    int[] lengths = {4096 + 28, 64 << 10, 256 << 10, (1 << 20) + 28};
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 200; t++) {
      SplittableRandom random = new SplittableRandom(t);
      threads.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    for (int i = 0; i < 50; i++) {
                      byte[] b = buffers.take(lengths[random.nextInt(lengths.length)]);
                      long cost = Math.min(b.length, budget);
                      peak.accumulateAndGet(inUse.addAndGet(cost), Math::max);
                      Thread.yield();
                      inUse.addAndGet(-cost);
                      buffers.give(b);
                    }
                  }));
    }
    for (Thread t : threads) {
      assertThat(t.join(Duration.ofSeconds(60))).as("every request got its buffer").isTrue();
    }
    assertThat(peak.get()).isLessThanOrEqualTo(budget);
    assertThat(buffers.held()).isLessThanOrEqualTo(budget);
    buffers.trim();
    assertThat(buffers.held()).isZero();
  }

  /**
   * A buffer given back wakes one waiter. When that one cannot use the room it makes (it drops the
   * kept buffer, and still needs more), the room must not go to waste: the next waiter, which fits,
   * is woken too, or it would wait until some other buffer came back, for ever if none does.
   */
  @Test
  void roomMadeByAWaiterThatStillCannotFitWakesTheNextWaiter() throws Exception {
    ReadBuffers buffers = new ReadBuffers(4);
    byte[] held = buffers.take(2);
    byte[] given = buffers.take(2); // the budget is taken
    Thread big = Thread.ofVirtual().start(() -> buffers.give(buffers.take(4))); // waits first
    awaitWaiting(big);
    Thread small = Thread.ofVirtual().start(() -> buffers.give(buffers.take(1))); // then this one
    awaitWaiting(small);
    buffers.give(given); // wakes big: it drops this, still cannot have 4, and waits again
    assertThat(small.join(Duration.ofSeconds(5)))
        .as("the waiter that fits in the room made got its buffer")
        .isTrue();
    buffers.give(held);
    assertThat(big.join(Duration.ofSeconds(5)))
        .as("and the big one once the rest came back")
        .isTrue();
  }

  /**
   * Buffers are kept by length, and a length's queue must not outlive its buffers: a client that
   * reads 1, 2, 3 ... bytes would otherwise leave one empty queue per length it ever asked for (up
   * to 32 Mi of them; the soak's unaligned reads left 5,800 after 10 minutes), memory growing with
   * the requests, not the budget, and every drop walking them all.
   */
  @Test
  void lengthsAskedForOnceLeaveNoQueueBehindOnceTheirBuffersAreDropped() {
    long budget = 1 << 20;
    ReadBuffers buffers = new ReadBuffers(budget);
    for (int length = 1; length <= 20_000; length++) {
      buffers.give(buffers.take(length));
    }
    // Between two drops every queue holds a buffer of its own length, all within the budget:
    // 1 + 2 + ... + n <= budget.
    long n = (long) Math.floor((Math.sqrt(8.0 * budget + 1) - 1) / 2);
    assertThat(buffers.keptLengths()).isLessThanOrEqualTo((int) n + 1);
    buffers.trim();
    assertThat(buffers.keptLengths()).isZero();
    assertThat(buffers.held()).isZero();
  }

  /**
   * Drops racing with buffers given back: a buffer given into a queue a drop has just taken out of
   * the map is dropped too, never stranded there (its bytes would count against the budget for
   * ever).
   */
  @Test
  void buffersGivenBackWhileDropsRunAreNeitherLostNorCountedTwice() throws Exception {
    long budget = 256 << 10;
    ReadBuffers buffers = new ReadBuffers(budget);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      SplittableRandom random = new SplittableRandom(t);
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int i = 0; i < 20_000; i++) {
                      buffers.give(buffers.take(1 + random.nextInt(64)));
                      if (i % 64 == 0) {
                        buffers.trim();
                      }
                    }
                  }));
    }
    for (Thread t : threads) {
      assertThat(t.join(Duration.ofSeconds(60))).as("every request got its buffer").isTrue();
    }
    assertThat(buffers.held()).isLessThanOrEqualTo(budget);
    buffers.trim();
    assertThat(buffers.held()).isZero();
    assertThat(buffers.keptLengths()).isZero();
  }

  private static void awaitWaiting(Thread t) throws InterruptedException {
    for (int i = 0; i < 500 && t.getState() != Thread.State.WAITING; i++) {
      Thread.sleep(10);
    }
    assertThat(t.getState()).isEqualTo(Thread.State.WAITING);
  }
}
