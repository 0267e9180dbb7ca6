package org.jverity.internal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs numbered tasks on a few platform threads that each own their buffers. Hashing is CPU-bound,
 * so one thread per core; tasks are handed out in increasing order, which keeps reads nearly
 * sequential. Not exported: shared by the tree builder/checker and the FEC encoder.
 */
public final class Parallel {
  private Parallel() {}

  /** One thread's worker; owns its buffers, runs tasks one at a time. */
  public interface Worker {
    void run(long task) throws IOException;
  }

  public interface WorkerFactory {
    Worker newWorker();
  }

  /**
   * Runs tasks {@code 0 .. tasks-1}, each exactly once, on up to {@code threads} threads (the
   * caller's among them). Stops handing out tasks after the first failure and rethrows it.
   */
  public static void run(int threads, long tasks, WorkerFactory factory) throws IOException {
    run("jverity-hash-", threads, tasks, factory);
  }

  /**
   * As {@link #run(int, long, WorkerFactory)}, naming the helper threads {@code threadName + i}.
   */
  public static void run(String threadName, int threads, long tasks, WorkerFactory factory)
      throws IOException {
    if (tasks <= 0) {
      return;
    }
    int n = (int) Math.min(Math.max(1, threads), tasks);
    AtomicLong next = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Runnable loop =
        () -> {
          try {
            Worker w = factory.newWorker();
            for (long t; failure.get() == null && (t = next.getAndIncrement()) < tasks; ) {
              w.run(t);
            }
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
          }
        };
    List<Thread> helpers = new ArrayList<>(n - 1);
    for (int i = 1; i < n; i++) {
      helpers.add(Thread.ofPlatform().name(threadName + i).daemon().start(loop));
    }
    loop.run();
    boolean interrupted = false;
    for (Thread t : helpers) {
      while (true) {
        try {
          t.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true; // finish joining: workers write into buffers we still own
          failure.compareAndSet(null, e);
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    Throwable e = failure.get();
    switch (e) {
      case null -> {}
      case IOException io -> throw io;
      case UncheckedIOException u -> throw u.getCause();
      case RuntimeException r -> throw r;
      case Error err -> throw err;
      case InterruptedException ie -> throw new InterruptedIOException("interrupted");
      default -> throw new IllegalStateException(e);
    }
  }
}
