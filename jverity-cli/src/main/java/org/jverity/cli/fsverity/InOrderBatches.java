package org.jverity.cli.fsverity;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Items handed to a pool in batches and their results taken back in the order the items came: the
 * caller adds items as it finds them, whole batches are worked on side by side, and each batch's
 * results go to the consumer, on the caller's thread, once every batch before it has. At most
 * {@code window} batches are out at a time, so memory is bounded by the window whatever the number
 * of items: adding to a full window first waits for, and consumes, the oldest batch.
 *
 * @param <I> an item
 * @param <R> an item's result
 */
final class InOrderBatches<I, R> {
  /** A batch's work: one result per item, in order. Runs on a pool thread. */
  interface Work<I, R> {
    List<R> run(List<I> batch) throws Exception;
  }

  /** Takes a batch's results, in the order of its items. Runs on the caller's thread. */
  interface Consumer<I, R> {
    void accept(List<I> batch, List<R> results) throws Exception;
  }

  private record Out<I, R>(List<I> items, Future<List<R>> results) {}

  private final ExecutorService pool;
  private final int batchSize; // items
  private final long batchWeight; // a batch is also full once its items weigh this much
  private final int window; // batches out at a time
  private final Work<I, R> work;
  private final Consumer<I, R> consumer;
  private final ArrayDeque<Out<I, R>> out = new ArrayDeque<>();
  private List<I> filling;
  private long weight;

  InOrderBatches(
      ExecutorService pool,
      int batchSize,
      long batchWeight,
      int window,
      Work<I, R> work,
      Consumer<I, R> consumer) {
    this.pool = pool;
    this.batchSize = batchSize;
    this.batchWeight = batchWeight;
    this.window = window;
    this.work = work;
    this.consumer = consumer;
    this.filling = new ArrayList<>(batchSize);
  }

  /** Adds an item of {@code itemWeight} (e.g. bytes to hash), sending its batch when full. */
  void add(I item, long itemWeight) throws Exception {
    filling.add(item);
    weight += itemWeight;
    if (filling.size() >= batchSize || weight >= batchWeight) {
      send();
    }
  }

  /**
   * Works on the last batch on this thread, which would otherwise only wait (so a lone batch, one
   * small file, starts no thread at all: ~15 ms of a one-file digest), then consumes every batch,
   * in order; a failure of the last batch's work is thrown when its turn comes.
   */
  void finish() throws Exception {
    List<I> last = filling;
    List<R> results = null;
    Exception failed = null;
    if (!last.isEmpty()) {
      filling = new ArrayList<>(0);
      while (out.size() >= window) { // this batch counts against the window too
        consumeOldest();
      }
      try {
        results = work.run(last);
      } catch (Exception e) {
        failed = e;
      }
    }
    while (!out.isEmpty()) {
      consumeOldest();
    }
    if (failed != null) {
      throw failed;
    }
    if (!last.isEmpty()) {
      consumer.accept(last, results);
    }
  }

  private void send() throws Exception {
    if (out.size() >= window) {
      consumeOldest();
    }
    List<I> batch = filling;
    out.add(new Out<>(batch, pool.submit(() -> work.run(batch))));
    filling = new ArrayList<>(batchSize);
    weight = 0;
  }

  private void consumeOldest() throws Exception {
    Out<I, R> oldest = out.remove();
    List<R> results;
    try {
      results = oldest.results().get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception x ? x : new IllegalStateException(e.getCause());
    }
    consumer.accept(oldest.items(), results);
  }
}
