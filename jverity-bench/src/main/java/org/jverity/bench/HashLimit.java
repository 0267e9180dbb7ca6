package org.jverity.bench;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The SHA-256 limits the benchmarks compare against. One stream is measured here: salted 4 KiB
 * blocks ({@code update(salt32); update(block); digest()}) over an in-cache 16 MiB buffer, as
 * shared/bench/hash_limit.sh measures. The two-stream limit (this CPU's real one: two blocks at a
 * time with SHA-NI) is bench/sha256-limit.sh's, which the bench scripts run first and pass in as
 * {@code -Djverity.bench.limit.sha256_two_stream_all} (and {@code _1core}), measured outside this
 * JVM so that it stays the same whichever hashing path the run under test has switched off.
 */
final class HashLimit {
  private HashLimit() {}

  /**
   * The probe's figure {@code name} (a LIMIT line's name, as {@code sha256_two_stream_all}) in
   * MB/s; fails when the script did not pass it, so that no ratio has a made-up denominator.
   */
  static double probed(String name) {
    String v = System.getProperty("jverity.bench.limit." + name);
    if (v == null || v.isBlank()) {
      throw new IllegalStateException(
          "no -Djverity.bench.limit." + name + ": run this through its bench/ script");
    }
    return Double.parseDouble(v);
  }

  /** MB/s (10^6 bytes of block data per second) on {@code threads} threads for {@code seconds}. */
  static double measure(int threads, double seconds) throws Exception {
    byte[] data = new byte[16 << 20];
    new Random(1).nextBytes(data);
    AtomicLong bytes = new AtomicLong();
    CyclicBarrier start = new CyclicBarrier(threads + 1);
    long[] deadline = new long[1]; // written before the barrier, read after it
    List<Thread> ts = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      ts.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      MessageDigest md = MessageDigest.getInstance("SHA-256");
                      byte[] salt = new byte[32];
                      byte[] out = new byte[32];
                      start.await();
                      long n = 0;
                      while (System.nanoTime() < deadline[0]) {
                        for (int off = 0; off < data.length; off += 4096) {
                          md.update(salt);
                          md.update(data, off, 4096);
                          md.digest(out, 0, 32);
                        }
                        n += data.length;
                      }
                      bytes.addAndGet(n);
                    } catch (Exception e) {
                      throw new RuntimeException(e);
                    }
                  }));
    }
    deadline[0] = System.nanoTime() + (long) (seconds * 1e9);
    long t = System.nanoTime();
    start.await();
    for (Thread th : ts) {
      th.join();
    }
    return bytes.get() / ((System.nanoTime() - t) / 1e9) / 1e6;
  }
}
