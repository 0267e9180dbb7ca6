package org.jverity.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.jverity.cli.command.ExitCode;

/**
 * The training run of the ahead-of-time cache (JDK 25, JEP 483/514/515): runs, in one process, the
 * commands users run most, so the cache holds their classes and the method profiles that let the
 * JIT compile their hashing loops early. {@code bin/jverity} runs it once per build: {@code java
 * -XX:AOTCacheOutput=jverity.aot -cp jverity.jar org.jverity.cli.AotTraining DIR}. DIR is scratch
 * space; the files are left for the caller to delete. An image is also read over {@code http://}
 * from a {@link TrainingRangeServer} on a loopback port, so a remote read starts from the cache
 * too.
 */
public final class AotTraining {
  private AotTraining() {}

  /** Data hashed per training command: enough for the optimising compiler to take over. */
  static final int DATA_BYTES = 64 << 20;

  static final int SMALL_FILES = 200;

  static final int SMALL_DIRS = 4;

  /** The image formatted with FEC: a few rounds of every parity path. */
  static final int FEC_DATA_BYTES = 4 << 20;

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: AotTraining DIR");
      System.exit(ExitCode.USAGE);
    }
    Path dir = Path.of(args[0]);
    SplittableRandom random = new SplittableRandom(1);
    Path data = dir.resolve("data.img");
    Files.write(data, bytes(random, DATA_BYTES));
    List<String> small = new ArrayList<>();
    Path tree = dir.resolve("tree"); // the small files in a few directories, for --recursive
    for (int i = 0; i < SMALL_FILES; i++) {
      Path sub = Files.createDirectories(tree.resolve("d" + i % SMALL_DIRS));
      Path f = sub.resolve("small-" + i);
      Files.write(f, bytes(random, 4096 * (1 + random.nextInt(16))));
      small.add(f.toString());
    }
    String hash = dir.resolve("data.hash").toString();
    String rootFile = dir.resolve("root").toString();
    run("--version");
    run("--help");
    run("dump", "--help");
    run("format", data.toString(), hash, "--root-hash-file", rootFile);
    String root = Files.readString(Path.of(rootFile)).strip();
    run("verify", data.toString(), hash, root);
    // FEC: its classes and tables (the parity loop is native where the library is).
    Path fecData = dir.resolve("fec-data.img");
    Files.write(fecData, bytes(random, FEC_DATA_BYTES));
    run(
        "format",
        fecData.toString(),
        dir.resolve("fec-data.hash").toString(),
        "--fec-device",
        dir.resolve("fec-data.fec").toString());
    run("dump", hash);
    run("read", data.toString(), hash, root, "--length", "1M", "-o", dir.resolve("out").toString());
    // The remote path: the JDK's HTTP client, the size probes, RemoteDevice's cache and fetches.
    // Where no loopback socket can be had the cache is still made, for local files only.
    try (TrainingRangeServer http = new TrainingRangeServer(dir)) {
      String out = dir.resolve("out-remote").toString();
      run("read", http.url("data.img"), http.url("data.hash"), root, "--length", "4K", "-o", out);
      run("read", http.url("data.img"), http.url("data.hash"), root, "--length", "8M", "-o", out);
    } catch (IOException | IllegalStateException e) {
      System.err.println("training: the remote read was skipped: " + e.getMessage());
    }
    run("digest", data.toString());
    List<String> digest = new ArrayList<>(List.of("digest"));
    digest.addAll(small);
    run(digest.toArray(String[]::new));
    run("digest", "--recursive", tree.toString());
  }

  private static void run(String... args) {
    StringWriter sink = new StringWriter();
    int code = Main.run(new PrintWriter(sink), new PrintWriter(sink), args);
    if (code != ExitCode.OK) { // a training run that fails teaches the cache the wrong path
      throw new IllegalStateException(
          "training: jverity " + String.join(" ", args) + " exited " + code + ": " + sink);
    }
  }

  private static byte[] bytes(SplittableRandom random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }
}
