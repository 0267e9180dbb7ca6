package org.jverity.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.io.FileDevice;
import org.jverity.tree.CheckReport;
import org.jverity.tree.Corruption;
import org.jverity.tree.TreeBuilder;
import org.jverity.tree.TreeChecker;
import org.jverity.tree.TreeGeometry;
import org.jverity.verify.IoClass;
import org.jverity.verify.VerificationScheduler;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

final class DemoCommand implements Command {
  int sizeMib = 512;
  boolean keep;

  static final Syntax<DemoCommand> SYNTAX = Syntax.command("demo",
      "Show jverity at work on a sample image in a temporary folder: format, verify, corrupt a"
        + " copy and report, verified reads, with throughput figures (and veritysetup's, when installed).",
      DemoCommand::new)
      .option("--size-mib", "MIB", "Sample image size in MiB (default 512).", (c, v) -> c.sizeMib = WholeNumber.parseInt(v))
      .flag("--keep", "Keep the temporary folder.", c -> c.keep = true);

  private java.io.PrintWriter out;

  @Override
  public int run(Io io) throws Exception {
    out = io.out();
    if (sizeMib < 1 || sizeMib > 65536) {
      throw new CliException(ExitCode.INVALID_PARAMETER, "--size-mib: " + sizeMib + " (expected: 1 to 65536)");
    }
    Path dir = Files.createTempDirectory("jverity-demo-");
    try {
      return demo(dir);
    } finally {
      if (keep) {
        out.println("\nKept " + dir);
      } else {
        deleteTree(dir);
      }
    }
  }

  private int demo(Path dir) throws Exception {
    Path data = dir.resolve("data.img");
    Path hash = dir.resolve("data.hash");
    long size = (long) sizeMib << 20;
    step("1. A " + sizeMib + " MiB sample image of pseudo-random bytes: " + data);
    writeSample(data, size);

    byte[] salt = new byte[32];
    Arrays.fill(salt, (byte) 0x5a);
    VerityParams p = VerityParams.builder()
        .dataBlocks(size / 4096).salt(salt)
        .uuid(UUID.fromString("00000000-0000-4000-8000-00000000beef")).build();

    step("2. jverity format data.img data.hash --salt 5a5a...5a");
    TreeBuilder builder = TreeBuilder.of(p);
    byte[] root;
    long t0 = System.nanoTime();
    try (FileDevice d = FileDevice.openChannel(data, false); FileDevice h = FileDevice.openChannel(hash, true)) {
      root = builder.build(d, h);
    }
    double formatSeconds = (System.nanoTime() - t0) / 1e9;
    out.print(Header.text(hash.toString(), builder.geometry(), root));
    out.printf("   formatted %d MiB in %.3f s: %.0f MB/s on %d threads%n", sizeMib, formatSeconds,
        size / formatSeconds / 1e6, Runtime.getRuntime().availableProcessors());

    step("3. jverity verify data.img data.hash " + Hex.format(root));
    t0 = System.nanoTime();
    CheckReport ok = check(p, data, hash, root);
    double verifySeconds = (System.nanoTime() - t0) / 1e9;
    out.printf("   %s in %.3f s: %.0f MB/s%n", ok.ok() ? "verified" : "FAILED", verifySeconds,
        size / verifySeconds / 1e6);

    step("   Again, now that the JIT has compiled the hashing path (as in a long-running process)");
    t0 = System.nanoTime();
    try (FileDevice d = FileDevice.openChannel(data, false); FileDevice h = FileDevice.openChannel(dir.resolve("again.hash"), true)) {
      builder.build(d, h);
    }
    double warmFormat = (System.nanoTime() - t0) / 1e9;
    t0 = System.nanoTime();
    check(p, data, hash, root);
    double warmVerify = (System.nanoTime() - t0) / 1e9;
    out.printf("   format %.0f MB/s, verify %.0f MB/s%n", size / warmFormat / 1e6, size / warmVerify / 1e6);
    formatSeconds = Math.min(formatSeconds, warmFormat);
    verifySeconds = Math.min(verifySeconds, warmVerify);

    step("4. Flip one byte of data block 1234 and one byte of a level-0 hash block, in copies");
    Path badData = dir.resolve("corrupt.img");
    Path badHash = dir.resolve("corrupt.hash");
    Files.copy(data, badData);
    Files.copy(hash, badHash);
    long dataBlock = Math.min(1234, p.dataBlocks() - 1);
    flipByte(badData, dataBlock * 4096 + 17);
    TreeGeometry g = builder.geometry();
    long hashBlock = g.levels() > 0 ? g.levelStart(0) + g.levelBlocks(0) - 1 : -1;
    if (hashBlock >= 0) {
      flipByte(badHash, hashBlock * p.hashBlockSize() + 3);
    }
    CheckReport bad = check(p, badData, badHash, root);
    out.println("   jverity verify corrupt.img corrupt.hash ... exits " + VerifyCommand.exitCode(bad) + ":");
    for (Corruption c : bad.corruptions()) {
      out.println("     " + c.describe() + " is corrupted");
    }
    if (bad.uncheckedDataBlocks() > 0) {
      out.println("     (" + bad.uncheckedDataBlocks() + " data blocks under the corrupted hash block could not be checked)");
    }

    verifiedReads(p, data, hash, root, size);
    compareWithVeritysetup(data, dir, root, hash, formatSeconds, verifySeconds, size);
    return ok.ok() && !bad.ok() ? ExitCode.OK : ExitCode.INTERNAL;
  }

  /** Step 5: random and sequential reads through the verified read path, with their speed. */
  private void verifiedReads(VerityParams p, Path data, Path hash, byte[] root, long size) throws IOException {
    step("5. Verified reads (jverity read): every block checked against the root hash before use");
    try (BlockDevice d = BlockDevices.openRead(data); BlockDevice h = BlockDevices.openRead(hash);
        VerifiedReader reader = VerifiedReader.open(p, d, h, root, HashBlockCache.shared(), ReaderOptions.DEFAULTS);
        VerificationScheduler s = new VerificationScheduler(reader)) {
      byte[] buf = new byte[1 << 20];
      long t0 = System.nanoTime();
      for (long off = 0; off < size; off += buf.length) {
        s.read(off, buf, 0, (int) Math.min(buf.length, size - off), IoClass.BEST_EFFORT);
      }
      double seq = (System.nanoTime() - t0) / 1e9;
      java.util.SplittableRandom rnd = new java.util.SplittableRandom(1);
      long reads = 0;
      long blocks = size / 4096;
      t0 = System.nanoTime();
      long until = t0 + 1_000_000_000L;
      while (System.nanoTime() < until) {
        s.read(rnd.nextLong(blocks) * 4096, buf, 0, 4096, IoClass.BEST_EFFORT);
        reads++;
      }
      double rand = (System.nanoTime() - t0) / 1e9;
      out.printf("   sequential 1 MiB reads (first pass, cold cache): %.0f MB/s; random 4 KiB reads on one thread: %.0f IOPS"
          + " (%d verified inline, %d on the pool)%n", size / seq / 1e6, reads / rand,
          s.inlineRequests(), s.pooledRequests());
      try (VerifiedReader bad = VerifiedReader.open(p, d, h, flipFirst(root), HashBlockCache.shared(), ReaderOptions.DEFAULTS)) {
        bad.read(0, 4096);
        out.println("   a wrong root hash was accepted: THIS IS A BUG");
      } catch (org.jverity.verify.CorruptBlockException e) {
        out.println("   with a wrong root hash, the first read fails: " + e.getMessage().replace(dirPrefix(data), ""));
      }
    }
  }

  private static byte[] flipFirst(byte[] root) {
    byte[] r = root.clone();
    r[0] ^= 1;
    return r;
  }

  private static String dirPrefix(Path data) {
    return data.getParent() + "/";
  }

  private CheckReport check(VerityParams p, Path data, Path hash, byte[] root) throws IOException {
    try (FileDevice d = FileDevice.openChannel(data, false); FileDevice h = FileDevice.openChannel(hash, false)) {
      return TreeChecker.of(p).check(d, h, root);
    }
  }

  private void compareWithVeritysetup(Path data, Path dir, byte[] root, Path hash,
      double formatSeconds, double verifySeconds, long size) throws Exception {
    Path tool = Stream.of("/usr/sbin/veritysetup", "/sbin/veritysetup", "/usr/bin/veritysetup")
        .map(Path::of).filter(Files::isExecutable).findFirst().orElse(null);
    step("6. The same with veritysetup");
    if (tool == null) {
      out.println("   veritysetup is not installed (Debian: apt-get install cryptsetup-bin); skipped.");
      return;
    }
    Path vsHash = dir.resolve("veritysetup.hash");
    long t0 = System.nanoTime();
    String output = runTool(List.of(tool.toString(), "format", data.toString(), vsHash.toString(),
        "--salt", "5a".repeat(32), "--uuid", "00000000-0000-4000-8000-00000000beef"));
    double vsFormat = (System.nanoTime() - t0) / 1e9;
    t0 = System.nanoTime();
    runTool(List.of(tool.toString(), "verify", data.toString(), vsHash.toString(), Hex.format(root)));
    double vsVerify = (System.nanoTime() - t0) / 1e9;
    boolean sameRoot = output.contains(Hex.format(root));
    boolean sameFile = Arrays.equals(Files.readAllBytes(vsHash), Files.readAllBytes(hash));
    out.printf("   veritysetup format: %.3f s, %.0f MB/s; verify %.3f s, %.0f MB/s%n",
        vsFormat, size / vsFormat / 1e6, vsVerify, size / vsVerify / 1e6);
    out.printf("   root hash %s, hash file %s%n", sameRoot ? "identical" : "DIFFERENT",
        sameFile ? "byte-identical" : "DIFFERENT");
    out.printf("   jverity/veritysetup speed (jverity in-process, warm; veritysetup as a process):"
        + " format %.1fx, verify %.1fx%n",
        vsFormat / formatSeconds, vsVerify / verifySeconds);
  }

  private static String runTool(List<String> command) throws Exception {
    Process proc = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(proc.getInputStream().readAllBytes());
    if (proc.waitFor() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + output.strip());
    }
    return output;
  }

  private void step(String what) {
    out.println();
    out.println(what);
  }

  /** Deterministic pseudo-random bytes (xorshift), written in 1 MiB pieces. */
  private static void writeSample(Path path, long size) throws IOException {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
      long x = 0x9E3779B97F4A7C15L;
      for (long done = 0; done < size; done += buf.capacity()) {
        buf.clear();
        while (buf.hasRemaining()) {
          x ^= x << 13;
          x ^= x >>> 7;
          x ^= x << 17;
          buf.putLong(x);
        }
        buf.flip();
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
      }
    }
  }

  private static void flipByte(Path path, long offset) throws IOException {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, offset);
      b.put(0, (byte) (b.get(0) ^ 0x01)).rewind();
      ch.write(b, offset);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
