package org.jverity.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.jverity.format.VerityParams;
import org.jverity.io.FileDevice;
import org.jverity.tree.TreeBuilder;
import org.jverity.verify.IoClass;
import org.jverity.verify.VerificationScheduler;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * Verified random reads against unverified ones and the hash limit, in one JVM and one run, on an
 * image in the page cache with a hot hash-block cache. Prints IOPS, MB/s and p50/p99 latency for
 * each workload and mode, then the ratios the read path is judged by.
 *
 * <p>Usage: {@code ReadBench IMAGE [SECONDS_PER_CASE]}.
 */
public final class ReadBench {
  enum Mode { UNVERIFIED, INLINE_FIRST, WORKER_ONLY }

  record Workload(String name, int size, int threads) {}

  record Result(double iops, double mbps, double p50us, double p99us) {}

  interface Reader {
    void read(long offset, byte[] dst, int length) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    Path image = Path.of(args[0]);
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 3;
    long size = Files.size(image);
    byte[] salt = new byte[32];
    Arrays.fill(salt, (byte) 0x5a);
    VerityParams p = VerityParams.builder().dataBlocks(size / 4096).salt(salt).superblock(false).build();
    Path hashFile = image.resolveSibling(image.getFileName() + ".read-bench-hash");
    byte[] root;
    try (FileDevice d = FileDevice.openRead(image); FileDevice h = FileDevice.openWrite(hashFile)) {
      root = TreeBuilder.of(p).build(d, h);
    }
    int cores = Runtime.getRuntime().availableProcessors();
    try (FileDevice data = FileDevice.openRead(image); FileDevice hash = FileDevice.openRead(hashFile)) {
      VerifiedReader reader = VerifiedReader.open(p, data, hash, root, HashBlockCache.shared(), ReaderOptions.DEFAULTS);
      try (VerificationScheduler inline = new VerificationScheduler(reader);
          VerificationScheduler workers = new VerificationScheduler(reader)) {
        for (IoClass c : IoClass.values()) {
          workers.setInlineLimit(c, 0);
        }
        byte[] all = new byte[1 << 20];
        for (long off = 0; off < size; off += all.length) { // hot hash-block cache, warm JIT
          workers.read(off, all, 0, (int) Math.min(all.length, size - off), IoClass.BEST_EFFORT);
        }
        inline.setInlineLimit(IoClass.BEST_EFFORT, 8192);

        double limit1 = HashLimit.measure(1, seconds);
        double limitAll = HashLimit.measure(cores, seconds);
        List<Workload> workloads = List.of(
            new Workload("4k random, 1 thread", 4096, 1),
            new Workload("4k random, 8 threads", 4096, 8),
            new Workload("128k random, 1 thread", 128 << 10, 1),
            new Workload("512k random, 1 thread", 512 << 10, 1));
        StringBuilder table = new StringBuilder(String.format("%-24s %-13s %10s %10s %9s %9s%n",
            "workload", "mode", "IOPS", "MB/s", "p50 us", "p99 us"));
        Result[][] results = new Result[workloads.size()][Mode.values().length];
        for (int w = 0; w < workloads.size(); w++) {
          Workload wl = workloads.get(w);
          for (Mode m : Mode.values()) {
            Reader r = switch (m) {
              case UNVERIFIED -> (off, dst, len) -> data.readFully(off, dst, 0, len);
              case INLINE_FIRST -> (off, dst, len) -> inline.read(off, dst, 0, len, IoClass.BEST_EFFORT);
              case WORKER_ONLY -> (off, dst, len) -> workers.read(off, dst, 0, len, IoClass.BEST_EFFORT);
            };
            System.err.printf("# %s, %s ...%n", wl.name(), m.name().toLowerCase());
            Result res = run(r, wl, size, seconds);
            results[w][m.ordinal()] = res;
            table.append(String.format("%-24s %-13s %10.0f %10.0f %9.1f %9.1f%n", wl.name(), m.name().toLowerCase(),
                res.iops(), res.mbps(), res.p50us(), res.p99us()));
          }
        }
        System.out.printf("hash limit, sha256+salt32 4 KiB: 1 thread %.0f MB/s (%.0f blocks/s), %d threads %.0f MB/s (%.0f blocks/s)%n",
            limit1, limit1 * 1e6 / 4096, cores, limitAll, limitAll * 1e6 / 4096);
        double best4k = Math.max(results[1][Mode.INLINE_FIRST.ordinal()].iops(), results[1][Mode.WORKER_ONLY.ordinal()].iops());
        System.out.printf("4k random verified, 8 threads, hot cache: %.0f IOPS = %.0f%% of the %d-core hash-bound limit%n",
            best4k, 100 * best4k / (limitAll * 1e6 / 4096), cores);
        double readBound = 1 / (1 / results[1][Mode.UNVERIFIED.ordinal()].iops() + 1 / (limitAll * 1e6 / 4096));
        System.out.printf("  and %.0f%% of the bound that counts the unverified read too (%.0f IOPS)%n",
            100 * best4k / readBound, readBound);
        System.out.printf("4k random, 1 thread: inline-first / worker-only IOPS = %.2fx%n",
            results[0][Mode.INLINE_FIRST.ordinal()].iops() / results[0][Mode.WORKER_ONLY.ordinal()].iops());
        System.out.printf("512k, 1 reader, verified: %.0f MB/s = %.2fx the single-core hash speed%n",
            results[3][Mode.INLINE_FIRST.ordinal()].mbps(), results[3][Mode.INLINE_FIRST.ordinal()].mbps() / limit1);
        System.out.printf("scheduler (inline-first): %d inline, %d to the pool, %d fallbacks, %d pieces; cache %d blocks, %d misses%n",
            inline.inlineRequests(), inline.pooledRequests(), inline.fallbacks(), inline.pieces(),
            reader.cacheStats().cachedBlocks(), reader.cacheStats().misses());
        System.out.println();
        System.out.print(table); // the results table comes last
      }
    } finally {
      Files.deleteIfExists(hashFile);
    }
  }

  private static Result run(Reader r, Workload wl, long size, double seconds) throws Exception {
    long blocks = (size - wl.size()) / 4096;
    CyclicBarrier start = new CyclicBarrier(wl.threads() + 1);
    long[] deadline = new long[1];
    List<long[]> latencies = new ArrayList<>();
    AtomicLong ops = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < wl.threads(); t++) {
      long[] lat = new long[2_000_000];
      latencies.add(lat);
      int seed = t;
      threads.add(Thread.ofPlatform().start(() -> {
        try {
          SplittableRandom rnd = new SplittableRandom(seed);
          byte[] dst = new byte[wl.size()];
          start.await();
          int n = 0;
          while (System.nanoTime() < deadline[0] && n < lat.length) {
            long off = rnd.nextLong(blocks) * 4096;
            long t0 = System.nanoTime();
            r.read(off, dst, wl.size());
            lat[n++] = System.nanoTime() - t0;
          }
          ops.addAndGet(n);
          if (n < lat.length) {
            lat[n] = -1;
          }
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      }));
    }
    deadline[0] = System.nanoTime() + (long) (seconds * 1e9);
    long t0 = System.nanoTime();
    start.await();
    for (Thread t : threads) {
      t.join();
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    long total = ops.get();
    long[] all = new long[(int) total];
    int k = 0;
    for (long[] lat : latencies) {
      for (int i = 0; i < lat.length && lat[i] > 0 && k < all.length; i++) {
        all[k++] = lat[i];
      }
    }
    Arrays.sort(all, 0, k);
    return new Result(total / elapsed, total * (double) wl.size() / elapsed / 1e6,
        k == 0 ? 0 : all[k / 2] / 1e3, k == 0 ? 0 : all[(int) (k * 0.99)] / 1e3);
  }

}
