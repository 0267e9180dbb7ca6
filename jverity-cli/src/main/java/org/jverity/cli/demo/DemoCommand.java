package org.jverity.cli.demo;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.stream.Stream;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.ExitCodeRule;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.WholeNumber;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.image.VerifiedImage;
import org.jverity.image.VerityImage;
import org.jverity.io.FileDevice;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.TreeBuilder;
import org.jverity.tree.TreeChecker;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.IoClass;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerificationScheduler;

/**
 * A tour on a sample image. Every step is a command the user can paste (printed with {@code $},
 * absolute paths, full salt) and is run as that command, a whole process; its time is that of the
 * whole process, start-up included, the way veritysetup's is measured beside it. Figures measured
 * inside this JVM once it is warm are printed apart and labelled so, never set against
 * veritysetup's. Every rate is the size printed divided by the time printed.
 */
public final class DemoCommand implements Command {
  int sizeMib = 512;
  boolean keep;

  public static final Syntax<DemoCommand> SYNTAX =
      Syntax.command(
              "demo",
              "Show jverity at work on a sample image in a temporary folder: format, verify, corrupt a"
                  + " copy and report, verified reads, with throughput figures (and veritysetup's, when installed).",
              DemoCommand::new)
          .option(
              "--size-mib",
              "MIB",
              "Sample image size in MiB (default 512).",
              (c, v) -> c.sizeMib = WholeNumber.parseInt(v))
          .flag("--keep", "Keep the temporary folder.", c -> c.keep = true)
          .example(
              "Format, verify, corrupt and read a 16 MiB sample image in a temporary folder, with throughput figures:",
              "jverity demo --size-mib 16");

  private static final String SALT = "5a".repeat(32);
  private static final String UUID_TEXT = "00000000-0000-4000-8000-00000000beef";
  private static final int RUNS = 3; // whole processes per tool and command; the best one counts

  private PrintWriter out;
  private Path dir;
  private long size; // bytes of sample data

  @Override
  public int run(Io io) throws Exception {
    out = io.out();
    if (sizeMib < 1 || sizeMib > 65536) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER, "--size-mib: " + sizeMib + " (expected: 1 to 65536)");
    }
    dir = Files.createTempDirectory("jverity-demo-");
    try {
      return demo();
    } finally {
      if (keep) {
        out.println("\nKept " + dir + ": the commands above run as printed.");
      } else {
        deleteTree(dir);
        out.println(
            "\n"
                + dir
                + " is deleted; to keep it and paste the commands above: "
                + SelfCommand.shellLine(
                    SelfCommand.command("demo", "--keep", "--size-mib", String.valueOf(sizeMib))));
      }
      out.flush();
    }
  }

  private int demo() throws Exception {
    Path data = dir.resolve("data.img");
    Path hash = dir.resolve("data.hash");
    size = (long) sizeMib << 20;
    step(
        "1. A sample image of "
            + sizeMib
            + " MiB ("
            + size
            + " bytes) of pseudo-random bytes: "
            + data);
    writeSample(data, size);
    paragraph(
        "Each $ line is a command you can paste; it ran as printed, as a process of its own. Times"
            + " are wall-clock; a rate is the image size divided by the time (MB/s: 10^6 bytes a second).");

    step("2. Build its hash tree, as veritysetup format does");
    List<TimedRun> formats = new ArrayList<>();
    TimedRun format =
        run(0, "format", data.toString(), hash.toString(), "--salt", SALT, "--uuid", UUID_TEXT);
    formats.add(format);
    format.stdout().lines().forEach(l -> out.println("   " + l));
    timing(format);
    String root =
        format
            .stdout()
            .lines()
            .filter(l -> l.startsWith("Root hash:"))
            .map(l -> l.substring(l.indexOf(':') + 1).strip())
            .findFirst()
            .orElseThrow(() -> new IOException("format printed no root hash: " + format.stdout()));

    step("3. Verify the image against the root hash (exit 0: every block matches)");
    List<TimedRun> verifies = new ArrayList<>();
    TimedRun verify = run(0, "verify", data.toString(), hash.toString(), root);
    verifies.add(verify);
    timing(verify);

    VerityParams p =
        VerityParams.builder()
            .dataBlocks(size / 4096)
            .salt(Hex.parse("salt", SALT))
            .uuid(UUID.fromString(UUID_TEXT))
            .build();
    corruption(p, data, hash, root);
    boolean readsOk = reads(data, hash, root);
    compare(data, hash, root, formats, verifies);
    warm(p, data, hash, Hex.parse("root hash", root));
    return readsOk ? ExitCode.OK : ExitCode.INTERNAL;
  }

  /** Step 4: a corrupted copy, jverity's and veritysetup's reports, and how blocks are numbered. */
  private void corruption(VerityParams p, Path data, Path hash, String root) throws Exception {
    MerkleLayout g = MerkleLayout.dmVerity(p);
    int top = g.levels() - 1;
    long hashBlock = g.levelStart(0) + g.levelBlocks(0) - 1; // the last level-0 block
    long fanout = g.hashesPerBlock();
    long firstCovered = (hashBlock - g.levelStart(0)) * fanout; // the first data block it covers
    long lastCovered = Math.min(p.dataBlocks(), firstCovered + fanout) - 1;
    // A data block the corrupted hash block does not cover (at least 256 data blocks: two level-0
    // blocks).
    long dataBlock = Math.max(0, Math.min(1234, firstCovered - 1));
    step(
        "4. Flip one byte of data block "
            + dataBlock
            + " and one of hash block "
            + hashBlock
            + " (the last of level 0), in copies");
    Path badData = dir.resolve("corrupt.img");
    Path badHash = dir.resolve("corrupt.hash");
    Files.copy(data, badData);
    Files.copy(hash, badHash);
    flipByte(badData, dataBlock * p.dataBlockSize() + 17);
    flipByte(badHash, hashBlock * p.hashBlockSize() + 3);
    // verify is veritysetup's verb: its code for corruption is veritysetup's (2) unless the
    // environment the commands run in asks otherwise.
    int corrupted =
        ExitCodeRule.of(System.getenv(), List.of()).exitCode("verify", ExitCode.CORRUPTION);
    TimedRun bad = run(corrupted, "verify", badData.toString(), badHash.toString(), root);
    bad.stderr().lines().forEach(l -> out.println("   " + l));
    out.println("   (exit " + bad.exitCode() + ": corrupted blocks)");
    Path tool = veritysetup();
    if (tool != null) {
      TimedRun vs =
          TimedRun.of(
              List.of(tool.toString(), "verify", badData.toString(), badHash.toString(), root),
              dir);
      out.println("   $ " + SelfCommand.shellLine(vs.command()));
      vs.stderr().lines().forEach(l -> out.println("   " + l));
      out.println("   (veritysetup stops at the first mismatch, and names its position)");
    }

    int bs = p.dataBlockSize();
    int hbs = p.hashBlockSize();
    paragraph(
        "How blocks are numbered: data blocks count from 0 at the start of the data file, "
            + bs
            + " bytes each, so data block "
            + dataBlock
            + " starts at byte "
            + dataBlock
            + " x "
            + bs
            + " = "
            + dataBlock * bs
            + ", its position. Hash blocks count from 0 at the start of the hash file, "
            + hbs
            + " bytes each: "
            + blockRange(0, g.levelStart(top))
            + " the superblock, then the levels, top first: "
            + levels(g)
            + ". Level 0 holds one digest per data block, "
            + fanout
            + " to a block: hash block "
            + hashBlock
            + " holds those of data blocks "
            + firstCovered
            + " to "
            + lastCovered
            + ", which is why they could not be checked.");
  }

  /** "block 0 holds" or "blocks 0 to 2 hold", for blocks {@code [from, to)}. */
  private static String blockRange(long from, long to) {
    return to - from == 1
        ? "block " + from + " holds"
        : "blocks " + from + " to " + (to - 1) + " hold";
  }

  private static String levels(MerkleLayout g) {
    List<String> parts = new ArrayList<>();
    for (int i = g.levels() - 1; i >= 0; i--) {
      long first = g.levelStart(i);
      long n = g.levelBlocks(i);
      parts.add(
          "level "
              + i
              + " is "
              + (n == 1 ? "block " + first : "blocks " + first + " to " + (first + n - 1)));
    }
    return String.join(", ", parts);
  }

  /** Step 5: read as a process, a wrong root hash, then reads inside this JVM (labelled). */
  private boolean reads(Path data, Path hash, String root) throws Exception {
    step(
        "5. Verified reads: no byte is written before its block matches the tree and the root hash");
    Path copy = dir.resolve("read.img");
    TimedRun read = run(0, "read", data.toString(), hash.toString(), root, "-o", copy.toString());
    timing(read);
    boolean same = Files.mismatch(copy, data) == -1;
    out.println(
        "   "
            + copy.getFileName()
            + (same ? " is identical to " : " DIFFERS FROM ")
            + data.getFileName());
    Files.delete(copy);

    String wrongRoot = (root.charAt(0) == '0' ? "1" : "0") + root.substring(1);
    TimedRun wrong =
        run(
            ExitCode.ROOT_HASH_MISMATCH,
            "read",
            data.toString(),
            hash.toString(),
            wrongRoot,
            "--length",
            "4096",
            "-o",
            "/dev/null");
    wrong.stderr().lines().forEach(l -> out.println("   " + l));
    out.println(
        "   (exit "
            + wrong.exitCode()
            + ": the tree is intact, the root hash given is not its own)");

    out.println(
        "   Inside this JVM, warm (as open and serve read once running; no process start-up):");
    try (VerifiedImage image =
        VerityImage.open(data.toString(), hash.toString(), root)
            .reader(new HashBlockCache(64 << 20), ReaderOptions.DEFAULTS)) {
      VerificationScheduler s = image.scheduler();
      byte[] buf = new byte[1 << 20];
      long t0 = System.nanoTime();
      for (long off = 0; off < size; off += buf.length) {
        s.read(off, buf, 0, (int) Math.min(buf.length, size - off), IoClass.BEST_EFFORT);
      }
      double seq = (System.nanoTime() - t0) / 1e9;
      out.printf(
          "   sequential 1 MiB reads, hash blocks not yet cached: %d bytes in %.3f s = %.0f MB/s%n",
          size, seq, size / seq / 1e6);
      long inline0 = s.inlineRequests();
      long pooled0 = s.pooledRequests();
      SplittableRandom rnd = new SplittableRandom(1);
      long reads = 0;
      long blocks = size / 4096;
      t0 = System.nanoTime();
      long until = t0 + 1_000_000_000L;
      while (System.nanoTime() < until) {
        s.read(rnd.nextLong(blocks) * 4096, buf, 0, 4096, IoClass.BEST_EFFORT);
        reads++;
      }
      double rand = (System.nanoTime() - t0) / 1e9;
      out.printf(
          "   random 4 KiB reads on one thread: %d in %.4f s = %.0f reads/s (%d verified on the reading"
              + " thread, %d handed to the hashing pool)%n",
          reads, rand, reads / rand, s.inlineRequests() - inline0, s.pooledRequests() - pooled0);
    }
    return same;
  }

  /** Step 6: whole processes against whole processes, best of {@link #RUNS} each. */
  private void compare(
      Path data, Path hash, String root, List<TimedRun> formats, List<TimedRun> verifies)
      throws Exception {
    step("6. The same with veritysetup: whole processes, best of " + RUNS + " runs each");
    Path tool = veritysetup();
    if (tool == null) {
      out.println(
          "   veritysetup is not installed (Debian: apt-get install cryptsetup-bin); skipped.");
      return;
    }
    Path vsHash = dir.resolve("veritysetup.hash");
    List<TimedRun> vsFormats = new ArrayList<>();
    List<TimedRun> vsVerifies = new ArrayList<>();
    for (int i = 0; i < RUNS; i++) {
      if (formats.size() < RUNS) { // the commands of steps 2 and 3 again (format into another file)
        formats.add(
            TimedRun.of(
                    SelfCommand.command(
                        "format",
                        data.toString(),
                        dir.resolve("again.hash").toString(),
                        "--salt",
                        SALT,
                        "--uuid",
                        UUID_TEXT),
                    dir)
                .expect(0));
        verifies.add(
            TimedRun.of(SelfCommand.command("verify", data.toString(), hash.toString(), root), dir)
                .expect(0));
      }
      Files.deleteIfExists(vsHash);
      vsFormats.add(
          TimedRun.of(
                  List.of(
                      tool.toString(),
                      "format",
                      data.toString(),
                      vsHash.toString(),
                      "--salt",
                      SALT,
                      "--uuid",
                      UUID_TEXT),
                  dir)
              .expect(0));
      vsVerifies.add(
          TimedRun.of(
                  List.of(tool.toString(), "verify", data.toString(), vsHash.toString(), root), dir)
              .expect(0));
    }
    out.println("   $ " + SelfCommand.shellLine(vsFormats.getFirst().command()));
    out.println("   $ " + SelfCommand.shellLine(vsVerifies.getFirst().command()));
    boolean sameRoot = vsFormats.getFirst().stdout().contains(root);
    boolean sameFile = Arrays.equals(Files.readAllBytes(vsHash), Files.readAllBytes(hash));
    out.printf(
        "   root hash %s, hash file %s%n",
        sameRoot ? "identical" : "DIFFERENT", sameFile ? "byte-identical" : "DIFFERENT");
    out.printf(
        "   %-7s %18s %18s   %s%n",
        "", "jverity", "veritysetup", "veritysetup time / jverity time");
    row("format", best(formats), best(vsFormats));
    row("verify", best(verifies), best(vsVerifies));
    paragraph(
        "jverity's runs are those of steps 2 and 3, repeated. Each whole process includes its"
            + " start-up: a JVM's takes longer than veritysetup's, and weighs less the larger the image.");
  }

  /** Prints {@code text} indented, wrapped at 100 columns. */
  private void paragraph(String text) {
    StringBuilder line = new StringBuilder("  ");
    for (String word : text.split(" ")) {
      if (line.length() + 1 + word.length() > 100) {
        out.println(line);
        line = new StringBuilder("  ");
      }
      line.append(' ').append(word);
    }
    out.println(line);
  }

  private void row(String what, double jverity, double veritysetup) {
    out.printf(
        "   %-7s %7.3f s %5.0f MB/s %7.3f s %5.0f MB/s   %.2f%n",
        what,
        jverity,
        size / jverity / 1e6,
        veritysetup,
        size / veritysetup / 1e6,
        veritysetup / jverity);
  }

  /**
   * Format and verify inside this JVM once the JIT has compiled the hashing: labelled, not
   * compared.
   */
  private void warm(VerityParams p, Path data, Path hash, byte[] root) throws IOException {
    step(
        "7. jverity inside this JVM, warm (JIT compiled, no start-up), as a long-running process sees it");
    TreeBuilder builder = TreeBuilder.of(p);
    TreeChecker checker = TreeChecker.of(p);
    Path scratch = dir.resolve("warm.hash");
    double format = Double.MAX_VALUE;
    double verify = Double.MAX_VALUE;
    for (int i = 0; i < 2; i++) { // the first round warms up, the best counts
      long t0 = System.nanoTime();
      try (FileDevice d = FileDevice.openChannel(data, false);
          FileDevice h = FileDevice.openChannel(scratch, true)) {
        builder.build(d, h);
      }
      format = Math.min(format, (System.nanoTime() - t0) / 1e9);
      t0 = System.nanoTime();
      try (FileDevice d = FileDevice.openChannel(data, false);
          FileDevice h = FileDevice.openChannel(hash, false)) {
        checker.check(d, h, root);
      }
      verify = Math.min(verify, (System.nanoTime() - t0) / 1e9);
    }
    out.printf(
        "   format: %d bytes in %.3f s = %.0f MB/s; verify: %d bytes in %.3f s = %.0f MB/s; on %d cores%n",
        size,
        format,
        size / format / 1e6,
        size,
        verify,
        size / verify / 1e6,
        Runtime.getRuntime().availableProcessors());
    paragraph(
        "Not comparable with step 6: no process starts here, and the hashing loop is already compiled.");
  }

  /** Runs jverity with {@code args} as a whole process, printing the command first. */
  private TimedRun run(int expectedExit, String... args) throws IOException, InterruptedException {
    List<String> command = SelfCommand.command(args);
    out.println("   $ " + SelfCommand.shellLine(command));
    out.flush();
    return TimedRun.of(command, dir).expect(expectedExit);
  }

  private void timing(TimedRun r) {
    out.printf(
        "   whole process, start-up included: %.3f s; %d bytes / %.3f s = %.0f MB/s%n",
        r.seconds(), size, r.seconds(), size / r.seconds() / 1e6);
  }

  private static double best(List<TimedRun> runs) {
    return runs.stream().mapToDouble(TimedRun::seconds).min().orElseThrow();
  }

  private static Path veritysetup() {
    return Stream.of("/usr/sbin/veritysetup", "/sbin/veritysetup", "/usr/bin/veritysetup")
        .map(Path::of)
        .filter(Files::isExecutable)
        .findFirst()
        .orElse(null);
  }

  private void step(String what) {
    out.println();
    out.println(what);
    out.flush();
  }

  /** Deterministic pseudo-random bytes (xorshift), written in 1 MiB pieces. */
  private static void writeSample(Path path, long size) throws IOException {
    try (FileChannel ch =
        FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
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
    try (FileChannel ch =
        FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
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
