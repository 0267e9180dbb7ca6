package org.jverity.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.image.VerifiedImage;
import org.jverity.image.VerityImage;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.io.FileDevice;
import org.jverity.tree.TreeBuilder;
import org.jverity.verify.CacheStats;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.HashingPool;
import org.jverity.verify.IoClass;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerificationScheduler;
import org.jverity.verify.VerifiedReader;

/**
 * Verified random reads against unverified ones and the SHA-256 limit, in one JVM and one run, on
 * an image in the page cache with a hot hash-block cache. The image is opened as every front end
 * opens one, through {@link VerityImage} (its devices mapped, as {@link BlockDevices#openRead} maps
 * them; the unverified reads go to a device of their own). One {@link HashBlockCache#shared()} and
 * one {@link HashingPool#shared()} serve two schedulers over its one reader: inline-first (the
 * defaults) and worker-only ({@link VerifiedImage#newScheduler}, every inline limit 0).
 *
 * <p>Prints the JVM flags, the hash limit on 1 and on all cores (measured before and after the
 * cases; the higher of the two is the denominator), a table (IOPS, MB/s, p50/p99 latency) per
 * workload and mode, 10,000 virtual-thread readers with the peak heap after GC beside the cache
 * budget, and as its last five lines the {@code RATIO} lines the read path is judged by.
 *
 * <p>Usage: {@code ReadBench IMAGE [SECONDS_PER_CASE]}.
 */
public final class ReadBench {
  private static final int BLOCK = 4096;
  private static final int VIRTUAL_READERS = 10_000;
  private static final int MAX_SAMPLES = 2_000_000; // latencies kept per thread

  enum Mode {
    UNVERIFIED,
    INLINE_FIRST,
    WORKER_ONLY
  }

  record Workload(String name, int size, int threads) {}

  /**
   * {@code cores}: this process's CPU time over the wall time of the case (other processes may take
   * the rest).
   */
  record Result(double iops, double mbps, double p50us, double p99us, double cores) {}

  interface Reader {
    void read(long offset, byte[] dst, int length) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    Locale.setDefault(Locale.ROOT); // '.' as the decimal point in every figure
    Path image = Path.of(args[0]);
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 3;
    long size = Files.size(image);
    byte[] salt = new byte[32];
    Arrays.fill(salt, (byte) 0x5a);
    VerityParams p = // a superblock, so the image opens as any front end opens one
        VerityParams.builder().dataBlocks(size / BLOCK).salt(salt).uuid(new UUID(0, 1)).build();
    Path hashFile = image.resolveSibling(image.getFileName() + ".read-bench-hash");
    byte[] root;
    try (BlockDevice d = BlockDevices.openRead(image);
        FileDevice h = FileDevice.openWrite(hashFile)) {
      root = TreeBuilder.of(p).build(d, h);
    }
    int cores = Runtime.getRuntime().availableProcessors();
    HashBlockCache cache = HashBlockCache.shared();
    HashingPool pool = HashingPool.shared();
    try (VerityImage opened =
            VerityImage.open(image.toString(), hashFile.toString(), Hex.format(root));
        BlockDevice data = BlockDevices.openRead(image); // the unverified reads
        VerifiedImage verified = opened.reader(cache, ReaderOptions.DEFAULTS)) {
      String devices = "data " + opened.data() + ", hash " + opened.hash();
      VerifiedReader reader = verified.reader();
      VerificationScheduler inline = verified.scheduler();
      VerificationScheduler workers = verified.newScheduler();
      for (IoClass c : IoClass.values()) {
        workers.setInlineLimit(c, 0);
      }
      System.out.printf(
          "# jvm: %s %s, flags: %s%n",
          System.getProperty("java.vm.name"),
          System.getProperty("java.runtime.version"),
          String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
      System.out.printf(
          "# devices: %s; cache budget %d MiB (shared), hashing pool %d threads (shared), "
              + "inline limit %d bytes (best effort), %.1f s per case%n",
          devices,
          cache.capacityBytes() >> 20,
          pool.threads(),
          inline.inlineLimit(IoClass.BEST_EFFORT),
          seconds);

      System.out.printf("# load average at the start: %s%n", loadAverage());
      warmUp(reader, inline, workers, data, size);
      HashLimit.measure(1, 0.3); // JIT warm-up of the digest
      Limit one0 = Limit.measure(1, seconds);
      Limit all0 = Limit.measure(cores, seconds);

      List<Workload> workloads =
          List.of(
              new Workload("4k random, 1 thread", 4096, 1),
              new Workload("4k random, 8 threads", 4096, 8),
              new Workload("128k random, 1 thread", 128 << 10, 1),
              new Workload("512k random, 1 thread", 512 << 10, 1));
      StringBuilder table =
          new StringBuilder(
              String.format(
                  "%-27s %-13s %10s %10s %9s %9s %6s%n",
                  "workload", "mode", "IOPS", "MB/s", "p50 us", "p99 us", "cores"));
      Result[][] results = new Result[workloads.size()][Mode.values().length];
      CacheStats before = reader.cacheStats();
      for (int w = 0; w < workloads.size(); w++) {
        Workload wl = workloads.get(w);
        for (Mode m : Mode.values()) {
          Reader r =
              switch (m) {
                case UNVERIFIED -> (off, dst, len) -> data.readFully(off, dst, 0, len);
                case INLINE_FIRST ->
                    (off, dst, len) -> inline.read(off, dst, 0, len, IoClass.BEST_EFFORT);
                case WORKER_ONLY ->
                    (off, dst, len) -> workers.read(off, dst, 0, len, IoClass.BEST_EFFORT);
              };
          System.err.printf("# %s, %s ...%n", wl.name(), m.name().toLowerCase());
          Result res = run(r, wl, size, seconds);
          results[w][m.ordinal()] = res;
          table.append(row(wl.name(), m, res));
        }
      }
      CacheStats afterCases = reader.cacheStats();

      System.err.printf("# 4k random, %d virtual threads, inline_first ...%n", VIRTUAL_READERS);
      Crowd crowd = runCrowd(inline, size, seconds);
      table.append(
          row(
              "4k random, " + VIRTUAL_READERS + " vthreads",
              Mode.INLINE_FIRST,
              new Result(
                  crowd.iops(), crowd.iops() * 4096 / 1e6, Double.NaN, Double.NaN, crowd.cores())));

      Limit one1 = Limit.measure(1, seconds);
      Limit all1 = Limit.measure(cores, seconds);
      double limit1 = Math.max(one0.mbps(), one1.mbps()); // the stricter denominator of the two
      double limitAll = Math.max(all0.mbps(), all1.mbps());
      double perCpu = Math.max(all0.perCpuSecond(), all1.perCpuSecond()); // MB per CPU-second
      double limitAllBlocks = limitAll * 1e6 / BLOCK;
      // The denominator of "of the hash limit" (issue 30): this CPU's two-stream limit on all
      // cores, in blocks/s. A 4 KiB read is one block, so it can only reach the one-stream limit
      // (the kernel does not pair across requests either): that ratio is printed too.
      double twoStreamBlocks = HashLimit.probed("sha256_two_stream_all") * 1e6 / BLOCK;

      Result u4k8 = results[1][Mode.UNVERIFIED.ordinal()];
      Result i4k8 = results[1][Mode.INLINE_FIRST.ordinal()];
      Result w4k8 = results[1][Mode.WORKER_ONLY.ordinal()];
      Result i4k1 = results[0][Mode.INLINE_FIRST.ordinal()];
      Result w4k1 = results[0][Mode.WORKER_ONLY.ordinal()];
      Result i128 = results[2][Mode.INLINE_FIRST.ordinal()];
      Result i512 = results[3][Mode.INLINE_FIRST.ordinal()];

      System.out.println();
      System.out.printf(
          "hash limit, sha256+salt32 4 KiB: 1 thread %s / %s (before / after the cases), "
              + "%d threads %s / %s; used: %.0f MB/s and %.0f MB/s = %.0f blocks/s%n",
          one0, one1, cores, all0, all1, limit1, limitAll, limitAllBlocks);
      System.out.printf(
          "4k random, 8 threads: inline-first %.0f IOPS = %.0f%%, worker-only %.0f IOPS = %.0f%% of the "
              + "%d-core hash limit; unverified %.0f IOPS%n",
          i4k8.iops(),
          100 * i4k8.iops() / limitAllBlocks,
          w4k8.iops(),
          100 * w4k8.iops() / limitAllBlocks,
          cores,
          u4k8.iops());
      System.out.printf(
          "  of this CPU's %d-core two-stream limit (%.0f blocks/s, sha256-limit.sh): inline-first "
              + "%.0f%%, worker-only %.0f%%%n",
          cores,
          twoStreamBlocks,
          100 * i4k8.iops() / twoStreamBlocks,
          100 * w4k8.iops() / twoStreamBlocks);
      System.out.printf(
          "  per CPU-second (robust to other processes taking cores): inline-first %.0f verified 4k reads "
              + "= %.0f%% of the %.0f blocks hashed per CPU-second by the hash limit%n",
          i4k8.iops() / i4k8.cores(),
          100 * i4k8.iops() / i4k8.cores() / (perCpu * 1e6 / BLOCK),
          perCpu * 1e6 / BLOCK);
      double readBound = 1 / (1 / u4k8.iops() + 1 / limitAllBlocks);
      System.out.printf(
          "  inline-first is %.0f%% of the bound that counts the unverified read too (%.0f IOPS)%n",
          100 * i4k8.iops() / readBound, readBound);
      System.out.printf(
          "512k, 1 reader, inline-first: %.0f MB/s = %.2fx one core's hash speed (worker-only %.0f MB/s)%n",
          i512.mbps(), i512.mbps() / limit1, results[3][Mode.WORKER_ONLY.ordinal()].mbps());
      System.out.printf(
          "128k, 1 reader, inline-first: %.0f MB/s = %.2fx one core's hash speed (worker-only %.0f MB/s)%n",
          i128.mbps(), i128.mbps() / limit1, results[2][Mode.WORKER_ONLY.ordinal()].mbps());
      System.out.printf(
          "4k random, 1 thread (queue depth 1): inline-first %.0f / worker-only %.0f IOPS = %.2fx%n",
          i4k1.iops(), w4k1.iops(), i4k1.iops() / w4k1.iops());
      System.out.printf(
          "%d virtual-thread readers, 4k, inline-first: %.0f IOPS; heap used after GC: %.1f MiB before "
              + "they started, peak %.1f MiB while they ran (forced GC mid-run %.1f MiB, %d GCs); cache budget %d MiB, "
              + "cached %.1f MiB (in the baseline); peak above the baseline %.1f MiB = %.1f KiB per reader in flight, "
              + "of which its own 4 KiB destination buffer; peak / (budget + readers' buffers %.1f MiB) = %.2f%n",
          VIRTUAL_READERS,
          crowd.iops(),
          mib(crowd.baseline()),
          mib(crowd.peak()),
          mib(crowd.forced()),
          crowd.collections(),
          cache.capacityBytes() >> 20,
          mib(crowd.cachedBytes()),
          mib(crowd.peak() - crowd.baseline()),
          (crowd.peak() - crowd.baseline()) / 1024.0 / VIRTUAL_READERS,
          mib((long) VIRTUAL_READERS * BLOCK),
          crowd.peak() / (double) (cache.capacityBytes() + (long) VIRTUAL_READERS * BLOCK));
      System.out.printf(
          "scheduler inline-first: %d inline, %d to the pool, %d fallbacks, %d pieces; worker-only: "
              + "%d to the pool, %d pieces%n",
          inline.inlineRequests(),
          inline.pooledRequests(),
          inline.fallbacks(),
          inline.pieces(),
          workers.pooledRequests(),
          workers.pieces());
      System.out.printf(
          "cache during the cases: %d hits, %d misses, %d loads, %d evictions; %d blocks, %.1f MiB cached%n",
          afterCases.hits() - before.hits(),
          afterCases.misses() - before.misses(),
          afterCases.loads() - before.loads(),
          afterCases.evictions() - before.evictions(),
          afterCases.cachedBlocks(),
          mib(afterCases.cachedBytes()));
      System.out.printf(
          "load average at the end: %s (other processes on this machine share its cores)%n",
          loadAverage());
      System.out.println();
      System.out.print(table);
      System.out.println();
      System.out.printf(
          "RATIO read_4k_random_8t_of_hash_limit %.2f%n", i4k8.iops() / twoStreamBlocks);
      System.out.printf(
          "RATIO read_4k_random_8t_of_one_stream_limit %.2f%n", i4k8.iops() / limitAllBlocks);
      System.out.printf("RATIO read_512k_1t_of_core_hash %.2f%n", i512.mbps() / limit1);
      System.out.printf("RATIO read_128k_1t_of_core_hash %.2f%n", i128.mbps() / limit1);
      System.out.printf("RATIO read_4k_qd1_inline_over_worker %.2f%n", i4k1.iops() / w4k1.iops());
    } finally {
      Files.deleteIfExists(hashFile);
    }
  }

  private static String row(String workload, Mode m, Result r) {
    return String.format(
        "%-27s %-13s %10.0f %10.0f %9s %9s %6.2f%n",
        workload,
        m.name().toLowerCase(),
        r.iops(),
        r.mbps(),
        micros(r.p50us()),
        micros(r.p99us()),
        r.cores());
  }

  /** One decimal, or "-" for a latency not measured. */
  private static String micros(double us) {
    return Double.isNaN(us) ? "-" : String.format("%.1f", us);
  }

  /**
   * A hash limit measured by {@link HashLimit}: MB/s and the cores this process kept busy
   * meanwhile.
   */
  record Limit(double mbps, double cores) {
    static Limit measure(int threads, double seconds) throws Exception {
      long cpu0 = cpuNanos();
      long t0 = System.nanoTime();
      double mbps = HashLimit.measure(threads, seconds);
      return new Limit(mbps, (cpuNanos() - cpu0) / (double) (System.nanoTime() - t0));
    }

    double perCpuSecond() {
      return mbps / cores;
    }

    @Override
    public String toString() {
      return String.format("%.0f MB/s (%.2f cores)", mbps, cores);
    }
  }

  /** CPU time of this whole process (every thread, the JIT and GC included), in nanoseconds. */
  static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** /proc/loadavg, or "unknown" where there is none. */
  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static double mib(long bytes) {
    return bytes / (double) (1 << 20);
  }

  /**
   * Loads every hash block (one sequential pass through the worker-only scheduler) and runs each
   * read path long enough for the JIT to compile it, so no case pays for either.
   */
  private static void warmUp(
      VerifiedReader reader,
      VerificationScheduler inline,
      VerificationScheduler workers,
      BlockDevice data,
      long size)
      throws Exception {
    byte[] all = new byte[1 << 20];
    for (long off = 0; off < size; off += all.length) {
      workers.read(off, all, 0, (int) Math.min(all.length, size - off), IoClass.BEST_EFFORT);
    }
    SplittableRandom rnd = new SplittableRandom(42);
    long blocks = (size - all.length) / BLOCK;
    long until = System.nanoTime() + 1_000_000_000L;
    while (System.nanoTime() < until) {
      long off = rnd.nextLong(blocks) * BLOCK;
      inline.read(off, all, 0, 4096, IoClass.BEST_EFFORT);
      workers.read(off, all, 0, 4096, IoClass.BEST_EFFORT);
      data.readFully(off, all, 0, 4096);
      inline.read(off, all, 0, 128 << 10, IoClass.BEST_EFFORT);
    }
    if (reader.cacheStats().cachedBlocks() == 0) {
      throw new IllegalStateException("warm-up left the hash block cache empty");
    }
  }

  private static Result run(Reader r, Workload wl, long size, double seconds) throws Exception {
    long blocks = (size - wl.size()) / BLOCK;
    CyclicBarrier start = new CyclicBarrier(wl.threads() + 1);
    long[] deadline = new long[1]; // written before the barrier, read after it
    List<long[]> latencies = new ArrayList<>();
    int[] counts = new int[wl.threads()];
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < wl.threads(); t++) {
      long[] lat = new long[MAX_SAMPLES];
      latencies.add(lat);
      int id = t;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      SplittableRandom rnd = new SplittableRandom(id);
                      byte[] dst = new byte[wl.size()];
                      start.await();
                      int n = 0;
                      while (System.nanoTime() < deadline[0] && n < lat.length) {
                        long off = rnd.nextLong(blocks) * BLOCK;
                        long t0 = System.nanoTime();
                        r.read(off, dst, wl.size());
                        lat[n++] = System.nanoTime() - t0;
                      }
                      counts[id] = n;
                    } catch (Throwable e) {
                      failure.compareAndSet(null, e);
                    }
                  }));
    }
    deadline[0] = System.nanoTime() + (long) (seconds * 1e9);
    long t0 = System.nanoTime();
    long cpu0 = cpuNanos();
    start.await();
    for (Thread t : threads) {
      t.join();
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    double cores = (cpuNanos() - cpu0) / 1e9 / elapsed;
    if (failure.get() != null) {
      throw new IllegalStateException(wl.name() + ": a reader failed", failure.get());
    }
    int total = Arrays.stream(counts).sum();
    long[] all = new long[total];
    int k = 0;
    for (int t = 0; t < counts.length; t++) {
      System.arraycopy(latencies.get(t), 0, all, k, counts[t]);
      k += counts[t];
    }
    Arrays.sort(all);
    return new Result(
        total / elapsed,
        total * (double) wl.size() / elapsed / 1e6,
        total == 0 ? 0 : all[total / 2] / 1e3,
        total == 0 ? 0 : all[(int) (total * 0.99)] / 1e3,
        cores);
  }

  /** The virtual-thread case: IOPS, and heap used after GC (bytes) against the cache. */
  record Crowd(
      double iops,
      double cores,
      long baseline,
      long peak,
      long forced,
      long collections,
      long cachedBytes) {}

  /**
   * {@value #VIRTUAL_READERS} virtual threads, each reading random 4 KiB blocks through {@code s}
   * for {@code seconds}. IOPS is counted up to the deadline; then, with every thread still mid-run,
   * a full GC measures what they hold live, before they are told to stop.
   */
  private static Crowd runCrowd(VerificationScheduler s, long size, double seconds)
      throws Exception {
    long blocks = (size - BLOCK) / BLOCK;
    long baseline = HeapWatch.usedAfterFullGc();
    LongAdder ops = new LongAdder();
    CountDownLatch ready = new CountDownLatch(VIRTUAL_READERS);
    CountDownLatch go = new CountDownLatch(1);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread[] threads = new Thread[VIRTUAL_READERS];
    try (HeapWatch heap = new HeapWatch()) {
      for (int t = 0; t < VIRTUAL_READERS; t++) {
        int id = t;
        threads[t] =
            Thread.ofVirtual()
                .start(
                    () -> {
                      try {
                        SplittableRandom rnd = new SplittableRandom(1_000_000 + id);
                        byte[] dst = new byte[BLOCK];
                        ready.countDown();
                        go.await();
                        while (!stop.get()) {
                          s.read(rnd.nextLong(blocks) * BLOCK, dst, 0, BLOCK, IoClass.BEST_EFFORT);
                          ops.increment();
                        }
                      } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                      }
                    });
      }
      ready.await();
      long t0 = System.nanoTime();
      long cpu0 = cpuNanos();
      go.countDown();
      Thread.sleep((long) (seconds * 1000));
      long n = ops.sum();
      double elapsed = (System.nanoTime() - t0) / 1e9;
      double cores = (cpuNanos() - cpu0) / 1e9 / elapsed;
      long forced = HeapWatch.usedAfterFullGc(); // the threads are still reading
      CacheStats cs = s.reader().cacheStats();
      stop.set(true);
      for (Thread t : threads) {
        t.join();
      }
      if (failure.get() != null) {
        throw new IllegalStateException("virtual-thread readers: one failed", failure.get());
      }
      Thread.sleep(200); // GC notifications are delivered asynchronously
      return new Crowd(
          n / elapsed,
          cores,
          baseline,
          Math.max(heap.peak(), forced),
          forced,
          heap.collections(),
          cs.cachedBytes());
    }
  }
}
