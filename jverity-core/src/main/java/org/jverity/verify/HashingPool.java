package org.jverity.verify;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads that verify what is not verified inline: a fixed number of platform threads (hashing
 * is CPU-bound; one per core, like the kernel's unbound {@code kverityd} workqueue), shared by
 * every image and scheduler of a process. Its threads are daemons and end after a few idle seconds,
 * so a pool nobody closes leaks nothing. Work is never interrupted: {@link #close()} lets queued
 * work finish, because callers wait for it. Thread-safe.
 */
public final class HashingPool implements AutoCloseable {
  private static final long IDLE_SECONDS = 5;
  private static volatile HashingPool shared;

  private final ThreadPoolExecutor executor;

  /** A pool of {@code threads} hashing threads, started on demand. */
  public HashingPool(int threads) {
    this(threads, IDLE_SECONDS * 1000);
  }

  /** A pool whose threads end after {@code idleMillis} without work. */
  HashingPool(int threads, long idleMillis) {
    if (threads < 1) {
      throw new IllegalArgumentException("hashing threads: " + threads + " (expected: at least 1)");
    }
    executor =
        new ThreadPoolExecutor(
            threads,
            threads,
            idleMillis,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            Thread.ofPlatform().name("jverity-hash-", 0).daemon().factory());
    executor.allowCoreThreadTimeOut(true);
  }

  /** The process-wide pool: one thread per available processor. */
  public static HashingPool shared() {
    HashingPool p = shared;
    if (p == null) {
      synchronized (HashingPool.class) {
        p = shared;
        if (p == null) {
          shared = p = new HashingPool(Runtime.getRuntime().availableProcessors());
        }
      }
    }
    return p;
  }

  /** Number of hashing threads. */
  public int threads() {
    return executor.getMaximumPoolSize();
  }

  /** Threads alive now (they end when idle). */
  public int liveThreads() {
    return executor.getPoolSize();
  }

  /** Runs {@code task} on a pool thread; throws {@link RejectedExecutionException} after close. */
  void execute(Runnable task) {
    executor.execute(task);
  }

  /** Accepts no more work; work already queued still runs, since its callers wait for it. */
  @Override
  public void close() {
    executor.shutdown();
  }
}
