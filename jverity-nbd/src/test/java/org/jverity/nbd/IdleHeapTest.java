package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The idle server's one collection, and that clients coming and going leave one waiting thread. */
class IdleHeapTest {
  private final AtomicInteger collections = new AtomicInteger();
  private final IdleHeap heap = new IdleHeap(Duration.ofMillis(100), collections::incrementAndGet);

  @Test
  void aClientThatComesAndGoesTenThousandTimesLeavesOneWaitingThreadAndOneCollection()
      throws Exception {
    for (int i = 0; i < 10_000; i++) {
      heap.clientCame();
      heap.lastClientLeft();
    }
    assertThat(heap.waitersStarted()).as("threads waiting for a quiet period").isEqualTo(1);
    Thread.sleep(600);
    assertThat(collections).hasValue(1);
  }

  @Test
  void aClientConnectedWhenTheQuietPeriodEndsIsNotIdle() throws Exception {
    heap.lastClientLeft();
    heap.clientCame();
    Thread.sleep(400);
    assertThat(collections).as("a client is connected").hasValue(0);
    heap.lastClientLeft();
    Thread.sleep(400);
    assertThat(collections).hasValue(1);
  }
}
