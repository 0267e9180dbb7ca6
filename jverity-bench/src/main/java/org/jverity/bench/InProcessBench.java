package org.jverity.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jverity.format.VerityParams;
import org.jverity.io.FileDevice;
import org.jverity.tree.CheckReport;
import org.jverity.tree.TreeBuilder;
import org.jverity.tree.TreeChecker;

/**
 * Measures, in one JVM and one run, the hash limit (SHA-256 of 4 KiB blocks with a 32-byte salt, as
 * shared/bench/hash_limit.sh does, on 1 and on all cores) and jverity's in-process tree build and
 * check on an image already in the page cache, after JIT warm-up. Prints a table and, as its last
 * lines, the ratios of tree build and check (best of the repetitions) to this CPU's all-core
 * two-stream limit (bench/sha256-limit.sh's, passed in: {@link HashLimit#probed}).
 *
 * <p>Usage: {@code InProcessBench IMAGE [REPS]}; the hash file is written next to the image.
 */
public final class InProcessBench {
  private static final int BLOCK = 4096;

  public static void main(String[] args) throws Exception {
    Path image = Path.of(args[0]);
    int reps = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int cores = Runtime.getRuntime().availableProcessors();
    long size = Files.size(image);
    long blocks = size / BLOCK;
    byte[] salt = new byte[32];
    Arrays.fill(salt, (byte) 0x5a);
    VerityParams p = VerityParams.builder().dataBlocks(blocks).salt(salt).superblock(false).build();
    Path hash = image.resolveSibling(image.getFileName() + ".inproc-hash");

    HashLimit.measure(1, 0.3); // JIT warm-up of the digest
    double limit1 = best(reps, () -> HashLimit.measure(1, 1.5));
    double limitAll = best(reps, () -> HashLimit.measure(cores, 1.5));
    double twoStreamAll = HashLimit.probed("sha256_two_stream_all");

    TreeBuilder builder = TreeBuilder.of(p);
    List<Double> build = new ArrayList<>();
    List<Double> check = new ArrayList<>();
    byte[] root = null;
    for (int i = 0; i < reps + 1; i++) { // the first of each is warm-up
      Files.deleteIfExists(hash);
      long t = System.nanoTime();
      try (FileDevice d = FileDevice.openRead(image);
          FileDevice h = FileDevice.openWrite(hash)) {
        root = builder.build(d, h);
      }
      double b = size / ((System.nanoTime() - t) / 1e9) / 1e6;
      t = System.nanoTime();
      CheckReport r;
      try (FileDevice d = FileDevice.openRead(image);
          FileDevice h = FileDevice.openRead(hash)) {
        r = TreeChecker.of(p).check(d, h, root);
      }
      double c = size / ((System.nanoTime() - t) / 1e9) / 1e6;
      if (!r.ok()) {
        throw new AssertionError("check failed on a fresh tree");
      }
      if (i > 0) {
        build.add(b);
        check.add(c);
      }
    }
    Files.deleteIfExists(hash);

    System.out.printf(
        "%-44s %10s %10s%n",
        "in-process (" + size / (1 << 20) + " MiB image, " + cores + " cores)",
        "best MB/s",
        "med MB/s");
    System.out.printf("%-44s %10.0f%n", "hash limit, sha256+salt32 4 KiB, 1 thread", limit1);
    System.out.printf(
        "%-44s %10.0f%n", "hash limit, sha256+salt32 4 KiB, " + cores + " threads", limitAll);
    System.out.printf(
        "%-44s %10.0f %10.0f%n", "jverity tree build (TreeBuilder)", max(build), median(build));
    System.out.printf(
        "%-44s %10.0f %10.0f%n", "jverity tree check (TreeChecker)", max(check), median(check));
    System.out.printf(
        "%-44s %10.0f%n", "two-stream limit, " + cores + " cores (sha256-limit.sh)", twoStreamAll);
    String at = sizeName(size);
    List<String> ratios = new ArrayList<>();
    for (var run : List.of(Map.entry("build", build), Map.entry("check", check))) {
      double best = max(run.getValue());
      System.out.printf(
          "%s: %.0f%% (best), %.0f%% (median) of the %d-core two-stream limit; %.0f%% of one stream's%n",
          run.getKey(),
          100 * best / twoStreamAll,
          100 * median(run.getValue()) / twoStreamAll,
          cores,
          100 * best / limitAll);
      ratios.add(
          String.format(
              "RATIO tree_%s_%s_of_hash_limit %.2f", run.getKey(), at, best / twoStreamAll));
    }
    ratios.forEach(System.out::println); // the RATIO lines last
  }

  /** 1g, 512m, as the scripts' SIZE argument names a size. */
  private static String sizeName(long bytes) {
    return bytes % (1L << 30) == 0 ? (bytes >> 30) + "g" : (bytes >> 20) + "m";
  }

  interface Measure {
    double run() throws Exception;
  }

  private static double best(int reps, Measure m) throws Exception {
    double best = 0;
    for (int i = 0; i < reps; i++) {
      best = Math.max(best, m.run());
    }
    return best;
  }

  private static double max(List<Double> v) {
    return v.stream().mapToDouble(Double::doubleValue).max().orElse(0);
  }

  private static double median(List<Double> v) {
    double[] s = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return s.length == 0 ? 0 : s[s.length / 2];
  }
}
