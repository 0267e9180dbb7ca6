package org.jverity.cli.fsverity;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.DistinctFiles;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.remote.RemoteArguments;
import org.jverity.cli.syntax.Location;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.WholeNumber;
import org.jverity.fsverity.FsVerityDescriptor;
import org.jverity.fsverity.FsVerityDigest;
import org.jverity.fsverity.FsVerityParams;
import org.jverity.fsverity.FsVerityTreeBuilder;
import org.jverity.fsverity.SmallFileBatch;
import org.jverity.hash.BlockHasher;
import org.jverity.image.DeviceSource;
import org.jverity.image.Locations;
import org.jverity.io.AtomicOutput;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.io.FileDevice;

/**
 * {@code fsverity digest}: prints each file's fs-verity digest, optionally writing its Merkle tree
 * and descriptor, with fsverity-utils 1.5's output. Small files are hashed side by side, one per
 * core, in batches handed out as they are found (a --recursive walk is hashed while it goes on);
 * those of up to a MiB are read whole and hashed in memory ({@link WholeFileDigests}), which is
 * what 10^5 files of a few KiB (a container image) cost: an open, two reads and a close a file. A
 * big file is hashed on every core. Lines come out in argument order, a batch at a time.
 */
public final class DigestCommand implements Command {
  /** Files up to this size are hashed one per thread; bigger ones on every thread in turn. */
  static final long SMALL_FILE = 8L << 20; // bytes

  /**
   * Small files go to the hashing threads in batches of this many files or bytes, whichever is
   * reached first: few enough hand-overs for 10^5 files of a few KiB, enough batches for the
   * threads to share a few larger files evenly.
   */
  static final int BATCH_FILES = 256;

  static final long BATCH_BYTES = 16L << 20;

  /** Batches out per hashing thread: they keep the threads busy while lines are printed. */
  static final int WINDOW_PER_THREAD = 4;

  /** Paths, or URLs (each one object: hashed as one file). */
  List<String> files;

  final FsVerityOptions options = new FsVerityOptions();
  final RemoteArguments remote = new RemoteArguments();
  private DeviceSource source = DeviceSource.LOCAL; // a RemoteSource when a FILE is a URL
  private FsVerityParams params; // from options, when run
  Path outTree;
  Path outDescriptor;
  boolean compact;
  boolean forBuiltinSig;
  boolean recursive;
  Integer threads;
  boolean json;
  private final List<Object> digests = new ArrayList<>(); // --json: one object per file, in order

  /** The options fsverity digest lacks: an abbreviation fsverity takes picks fsverity's. */
  private static final List<String> JVERITY_OWN =
      Stream.concat(
              RemoteArguments.SYNTAX.names().stream(),
              Stream.of("--recursive", "--threads", "--json"))
          .toList();

  public static final Syntax<DigestCommand> SYNTAX =
      Syntax.command(
              "digest",
              "Print the fs-verity digest of each FILE, as fsverity digest does.",
              DigestCommand::new)
          .parameters(
              "FILE",
              "Files (with --recursive, directories too), or URLs (http://, https://, s3://BUCKET/KEY).",
              (c, v) -> c.files = Syntax.append(c.files, Location.parse(v)))
          .include(FsVerityOptions.SYNTAX, c -> c.options)
          .include(RemoteArguments.SYNTAX, c -> c.remote)
          .option(
              "--out-merkle-tree",
              "FILE",
              "Write the Merkle tree to FILE (given several FILEs, each written over the last from offset 0, as fsverity does).",
              (c, v) -> c.outTree = OutputFile.parse(v))
          .option(
              "--out-descriptor",
              "FILE",
              "Write the 256-byte fs-verity descriptor to FILE (given several FILEs, one after another).",
              (c, v) -> c.outDescriptor = OutputFile.parse(v))
          .flag(
              "--compact",
              "Print the digest alone, without algorithm and file name.",
              c -> c.compact = true)
          .flag(
              "--for-builtin-sig",
              "Print the fsverity_formatted_digest a built-in signature signs, in hex.",
              c -> c.forBuiltinSig = true)
          .flag(
              "-r, --recursive",
              "Digest every regular file under each directory FILE, in sorted order.",
              c -> c.recursive = true)
          .option(
              "--threads",
              "N",
              "Hashing threads (default: one per core).",
              (c, v) -> c.threads = WholeNumber.parseInt(v))
          .flag(
              "--json",
              "Print one JSON object: \"files\", each file's digest, root hash and parameters.",
              c -> c.json = true)
          .abbreviations(JVERITY_OWN)
          .example(
              "Print app.bin's fs-verity digest, as fsverity digest does:",
              "jverity digest app.bin")
          .example(
              "The same, also writing its Merkle tree to app.bin.merkle (for cat):",
              "jverity digest app.bin --out-merkle-tree app.bin.merkle");

  @Override
  public int run(Io io) throws Exception {
    Checks.requireThreads(threads);
    params = options.params();
    source = remote.source(DeviceSource.LOCAL, files.toArray(String[]::new));
    try {
      return digestAll(io);
    } finally {
      RemoteArguments.close(source); // after the devices
    }
  }

  private int digestAll(Io io) throws Exception {
    int n = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    FsVerityTreeBuilder builder = FsVerityTreeBuilder.of(params).withThreads(n);
    PrintWriter out = io.out();
    if (outTree != null || outDescriptor != null) {
      List<String> all = expand();
      new DistinctFiles()
          .inputs("file", all.stream().map(Locations::file).filter(p -> p != null).toList())
          .output("--out-merkle-tree", outTree)
          .output("--out-descriptor", outDescriptor)
          .check();
      // As fsverity 1.5: the descriptors one after another; each tree written at offset 0 over the
      // last.
      sequentially(builder, all, out);
      return result(io);
    }
    ExecutorService pool =
        Executors.newFixedThreadPool(
            n, Thread.ofPlatform().daemon().name("jverity-digest-", 1).factory());
    try {
      FsVerityTreeBuilder single = builder.withThreads(1);
      ThreadLocal<WholeFileDigests> whole =
          ThreadLocal.withInitial(() -> new WholeFileDigests(params));
      InOrderBatches<Target, Digested> batches =
          new InOrderBatches<>(
              pool,
              BATCH_FILES,
              BATCH_BYTES,
              WINDOW_PER_THREAD * n,
              batch -> digestBatch(batch, single, whole.get()),
              (batch, results) -> sayBatch(out, builder, batch, results));
      forEachTarget(t -> batches.add(t, Math.max(0, t.size())));
      batches.finish();
    } finally {
      pool.shutdownNow();
    }
    return result(io);
  }

  /**
   * A file to digest: its location and, when local, its path and its size when it was found (else
   * null and -1).
   */
  private record Target(String location, Path path, long size) {
    boolean big() {
      return size < 0 || size > SMALL_FILE;
    }
  }

  /**
   * A file's result: its descriptor and file digest and, unless --json, its line; or why it failed;
   * or nothing, for a big file, which the printing thread hashes on every thread when it comes to
   * it.
   */
  private record Digested(FsVerityDescriptor descriptor, byte[] digest, String line, Exception e) {}

  /**
   * Hashes a batch's small files on this thread: those of up to a hash block's worth of blocks
   * together ({@link WholeFileDigests#addToBatch}: their blocks paired across files), others whole
   * in memory when they fit, else through a device. A failure ends the batch: it is reported after
   * the lines before it.
   */
  private List<Digested> digestBatch(
      List<Target> batch, FsVerityTreeBuilder single, WholeFileDigests whole) {
    Digested[] results = new Digested[batch.size()];
    SmallFileBatch together = whole.batch();
    int[] waiting = new int[batch.size()]; // by index in `together`: the file's index in `batch`
    try {
      for (int i = 0; i < batch.size(); i++) {
        Target t = batch.get(i);
        if (t.big()) {
          continue; // null: the printing thread hashes it on every thread
        }
        try {
          boolean suits = WholeFileDigests.suits(params, t.size());
          boolean batched = suits && together.takes(t.size());
          if (batched && !together.fits(t.size())) {
            hashTogether(together, batch, waiting, results);
          }
          int at = batched ? whole.addToBatch(t.path(), t.size()) : -1;
          if (at >= 0) {
            waiting[at] = i;
            continue;
          }
          FsVerityDescriptor d = suits ? whole.digest(t.path(), t.size()) : null;
          if (d == null) {
            d = digest(single, t.location(), false);
          }
          byte[] digest = whole.fileDigest(d);
          results[i] = new Digested(d, digest, json ? null : line(d, digest, t.location()), null);
        } catch (Exception e) {
          hashTogether(together, batch, waiting, results); // the files before it are reported
          results[i] = new Digested(null, null, null, e);
          return Arrays.asList(results).subList(0, i + 1);
        }
      }
      hashTogether(together, batch, waiting, results);
      return Arrays.asList(results);
    } finally {
      together.clear(); // empty for this thread's next batch, whatever happened
    }
  }

  /** Hashes the files waiting in {@code together}, fills in their results and empties it. */
  private void hashTogether(
      SmallFileBatch together, List<Target> batch, int[] waiting, Digested[] results) {
    together.hash();
    for (int k = 0; k < together.size(); k++) {
      FsVerityDescriptor d = together.descriptor(k);
      byte[] digest = together.fileDigest(k);
      String location = batch.get(waiting[k]).location();
      results[waiting[k]] = new Digested(d, digest, json ? null : line(d, digest, location), null);
    }
    together.clear();
  }

  /** Prints a batch's lines (or keeps its objects) in order, hashing its big files meanwhile. */
  private void sayBatch(
      PrintWriter out, FsVerityTreeBuilder builder, List<Target> batch, List<Digested> results)
      throws Exception {
    StringBuilder lines = new StringBuilder();
    try {
      for (int i = 0; i < results.size(); i++) {
        Digested r = results.get(i);
        String file = batch.get(i).location();
        if (r == null) {
          out.append(lines);
          lines.setLength(0);
          FsVerityDescriptor d = digest(builder, file, true);
          say(out, d, d.digest(), file);
        } else if (r.e() != null) {
          throw r.e();
        } else if (r.line() != null) {
          lines.append(r.line()).append(System.lineSeparator());
        } else {
          say(out, r.descriptor(), r.digest(), file);
        }
      }
    } finally {
      out.append(lines); // the lines before a failure, as fsverity prints them
      out.flush();
    }
  }

  /** A file's digest: its line, or under --json its object, kept for {@link #result}. */
  private void say(PrintWriter out, FsVerityDescriptor d, byte[] digest, String file) {
    if (!json) {
      out.println(line(d, digest, file));
      return;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("file", file);
    m.put("hashAlgorithm", params.algorithm().kernelName());
    m.put("blockSize", params.blockSize());
    m.put("salt", params.salt().length == 0 ? "-" : HexFormat.of().formatHex(params.salt()));
    m.put("dataSize", d.dataSize());
    m.put("rootHash", HexFormat.of().formatHex(d.rootHash()));
    m.put("digest", HexFormat.of().formatHex(digest));
    m.put("builtinSigDigest", HexFormat.of().formatHex(d.signedDigest()));
    digests.add(m);
  }

  /** Success; under --json, with every file's object (and the sidecar files written). */
  private int result(Io io) {
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("files", digests);
      if (outTree != null) {
        m.put("merkleTree", outTree.toString());
      }
      if (outDescriptor != null) {
        m.put("descriptor", outDescriptor.toString());
      }
      io.result(m);
    }
    return ExitCode.OK;
  }

  private FsVerityDescriptor digest(FsVerityTreeBuilder b, String file, boolean big)
      throws IOException {
    try (BlockDevice in = open(file, big)) {
      return b.digest(in);
    }
  }

  /**
   * A file is read with pread: the native loop hashes the direct buffer it is read into, one copy
   * from the page cache. Hashed in Java (into heap arrays, where a read is two copies), a big file
   * is mapped instead: one copy, at the price of a page fault per few pages (measured on 1 GiB in
   * /dev/shm with the native loop: 0.76 s of system time mapped, 0.30 s read). A small one is
   * always read, which costs less than setting up and tearing down a mapping; a URL through the
   * remote source.
   */
  private BlockDevice open(String file, boolean big) throws IOException {
    if (Locations.isRemote(file)) {
      return source.open(file);
    }
    Path p = Path.of(file);
    return big && !hashedNatively() ? BlockDevices.openRead(p) : FileDevice.openChannel(p, false);
  }

  /** Whether this command's blocks go to the native loop. */
  private boolean hashedNatively() {
    return BlockHasher.fsVerity(params.algorithm(), params.salt()).runsNatively();
  }

  /** Whether {@code file} is big enough to be hashed on every core (a URL always is). */
  private static boolean big(String file) throws IOException {
    return Locations.isRemote(file) || Files.size(Path.of(file)) > SMALL_FILE;
  }

  /** Each file on every core in turn, writing its tree at 0 and appending its descriptor. */
  private void sequentially(FsVerityTreeBuilder b, List<String> all, PrintWriter out)
      throws IOException {
    for (String p : all) {
      requireRegular(p);
    }
    // Each output starts empty (fsverity replaces the file: an older, longer tree must not survive
    // at its end) and replaces the file only once every digest is done: a failure leaves it as it
    // was.
    try (AtomicOutput treeFile = outTree == null ? null : AtomicOutput.to(outTree);
        AtomicOutput descriptorFile =
            outDescriptor == null ? null : AtomicOutput.to(outDescriptor)) {
      try (FileDevice tree = treeFile == null ? null : treeFile.device();
          FileDevice descriptors = descriptorFile == null ? null : descriptorFile.device()) {
        writeSidecars(b, all, out, tree, descriptors);
      }
      if (treeFile != null) {
        treeFile.commit();
      }
      if (descriptorFile != null) {
        descriptorFile.commit();
      }
    }
  }

  /** Digests each file in turn into the open outputs. */
  private void writeSidecars(
      FsVerityTreeBuilder b,
      List<String> all,
      PrintWriter out,
      FileDevice tree,
      FileDevice descriptors)
      throws IOException {
    long descriptorEnd = 0;
    for (String p : all) {
      FsVerityDescriptor d;
      try (BlockDevice in = open(p, big(p))) {
        d = tree == null ? b.digest(in) : b.build(in, tree);
      }
      if (descriptors != null) {
        descriptors.writeFully(descriptorEnd, ByteBuffer.wrap(d.encode()));
        descriptorEnd += FsVerityDescriptor.SIZE;
      }
      say(out, d, d.digest(), p);
    }
    if (descriptors != null) {
      descriptors.flush();
    }
  }

  /**
   * The files to hash: the arguments, each directory replaced by its regular files (--recursive).
   */
  private List<String> expand() throws Exception {
    List<String> all = new ArrayList<>();
    forEachTarget(t -> all.add(t.location()));
    return all;
  }

  /** Receives the files to hash, in order. */
  private interface TargetVisitor {
    void visit(Target t) throws Exception;
  }

  /**
   * Hands over the files to hash in order: the arguments, each directory replaced by its regular
   * files in sorted order (--recursive), as the walk reaches them. The files named as arguments are
   * checked first, so a missing one fails before any is hashed; those a walk finds are regular by
   * its stat, and fail (no such file, permission denied) when opened.
   */
  private void forEachTarget(TargetVisitor visitor) throws Exception {
    List<Target> given = new ArrayList<>(files.size());
    for (String f : files) {
      if (walked(f)) {
        given.add(null);
      } else {
        requireRegular(f);
        given.add(
            Locations.isRemote(f)
                ? new Target(f, null, -1)
                : new Target(f, Path.of(f), Files.size(Path.of(f))));
      }
    }
    for (int i = 0; i < files.size(); i++) {
      if (given.get(i) != null) {
        visitor.visit(given.get(i));
      } else {
        SortedFileWalk.walk(
            Path.of(files.get(i)),
            f -> visitor.visit(new Target(f.path().toString(), f.path(), f.size())));
      }
    }
  }

  /** Whether {@code f} is a directory whose files --recursive hashes. */
  private boolean walked(String f) {
    return recursive && !Locations.isRemote(f) && Files.isDirectory(Path.of(f));
  }

  private void requireRegular(String location) {
    if (Locations.isRemote(location)) {
      return; // the origin's to answer for
    }
    Path p = Path.of(location);
    if (!Files.exists(p)) {
      throw new CliException(ExitCode.IO_ERROR, p + ": no such file");
    }
    if (Files.isDirectory(p)) {
      throw new CliException(
          ExitCode.IO_ERROR, p + ": is a directory" + (recursive ? "" : " (use --recursive)"));
    }
    if (!Files.isReadable(p)) {
      throw new CliException(ExitCode.IO_ERROR, p + ": permission denied");
    }
  }

  /** A file's line, given its descriptor and file digest (hashed once, by the caller). */
  private String line(FsVerityDescriptor d, byte[] digest, String file) {
    if (forBuiltinSig) {
      String signed = HexFormat.of().formatHex(d.signedDigest());
      return compact ? signed : signed + " " + file;
    }
    return compact
        ? HexFormat.of().formatHex(digest)
        : new FsVerityDigest(params.algorithm(), digest) + " " + file;
  }
}
