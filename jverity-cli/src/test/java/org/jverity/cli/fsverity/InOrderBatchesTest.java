package org.jverity.cli.fsverity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link InOrderBatches}: results in the order of the items whatever order the batches finish in,
 * batches cut by count and by weight, never more than the window out, and a batch's failure thrown
 * to the caller.
 */
class InOrderBatchesTest {
  private final ExecutorService pool = Executors.newFixedThreadPool(3);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void resultsComeInTheItemsOrderAndTheWindowBoundsWhatIsOut() throws Exception {
    List<Integer> seen = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    AtomicInteger out = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    InOrderBatches<Integer, String> b =
        new InOrderBatches<>(
            pool,
            10,
            1000,
            4,
            batch -> {
              most.accumulateAndGet(out.incrementAndGet(), Math::max);
              Thread.sleep(ThreadLocalRandom.current().nextInt(3)); // finish out of order
              out.decrementAndGet();
              return batch.stream().map(i -> "r" + i).toList();
            },
            (batch, results) -> {
              sizes.add(batch.size());
              for (int i = 0; i < batch.size(); i++) {
                assertThat(results.get(i)).isEqualTo("r" + batch.get(i));
                seen.add(batch.get(i));
              }
            });
    for (int i = 0; i < 500; i++) {
      b.add(i, i == 100 ? 5000 : 1); // item 100 alone outweighs a batch
    }
    b.finish();
    assertThat(seen).hasSize(500).isSorted();
    assertThat(most.get()).isBetween(1, 4);
    assertThat(sizes.subList(0, 10)).containsOnly(10);
    assertThat(sizes.get(10)).as("item 100 alone, by weight").isEqualTo(1);
    assertThat(sizes.get(sizes.size() - 1)).as("the rest, at finish").isEqualTo(9);
  }

  @Test
  void aBatchsFailureIsThrownToTheCaller() {
    List<Integer> seen = new ArrayList<>();
    InOrderBatches<Integer, Integer> b =
        new InOrderBatches<>(
            pool,
            2,
            Long.MAX_VALUE,
            2,
            batch -> {
              if (batch.contains(5)) {
                throw new IOException("item 5: no such file");
              }
              return batch;
            },
            (batch, results) -> seen.addAll(results));
    assertThatThrownBy(
            () -> {
              for (int i = 0; i < 20; i++) {
                b.add(i, 1);
              }
              b.finish();
            })
        .isInstanceOf(IOException.class)
        .hasMessage("item 5: no such file");
    assertThat(seen).containsExactly(0, 1, 2, 3);
  }

  @Test
  void aLoneBatchIsWorkedOnTheCallersThreadAndTheLastOnesFailureWaitsItsTurn() throws Exception {
    List<Thread> workers = new ArrayList<>();
    List<Integer> seen = new ArrayList<>();
    InOrderBatches<Integer, Integer> lone =
        new InOrderBatches<>(
            pool,
            10,
            Long.MAX_VALUE,
            4,
            batch -> {
              workers.add(Thread.currentThread());
              return batch;
            },
            (batch, results) -> seen.addAll(results));
    lone.add(1, 1);
    lone.add(2, 1);
    lone.finish();
    assertThat(workers).containsExactly(Thread.currentThread());
    assertThat(seen).containsExactly(1, 2);

    List<Integer> before = new ArrayList<>();
    InOrderBatches<Integer, Integer> b =
        new InOrderBatches<>(
            pool,
            2,
            Long.MAX_VALUE,
            4,
            batch -> {
              if (batch.contains(6)) {
                throw new IOException("item 6: no such file");
              }
              Thread.sleep(5); // the pool's batches end after the caller's
              return batch;
            },
            (batch, results) -> before.addAll(results));
    for (int i = 0; i < 7; i++) {
      b.add(i, 1);
    }
    assertThatThrownBy(b::finish)
        .isInstanceOf(IOException.class)
        .hasMessage("item 6: no such file");
    assertThat(before)
        .as("every batch before the last, consumed first")
        .containsExactly(0, 1, 2, 3, 4, 5);
  }
}
