package org.jverity.cli.fsverity;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
import org.jverity.fsverity.FsVerityParams;
import org.jverity.fsverity.FsVerityTreeBuilder;
import org.jverity.image.DeviceSource;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.io.FileDevice;
import org.jverity.server.AtomicOutput;
import org.jverity.server.Locations;

/**
 * {@code fsverity digest}: prints each file's fs-verity digest, optionally writing its Merkle tree
 * and descriptor, with fsverity-utils 1.5's output. Small files are hashed side by side, one per
 * core; a big one on every core; lines come out in argument order.
 */
public final class DigestCommand implements Command {
  /** Files up to this size are hashed one per thread; bigger ones on every thread in turn. */
  static final long SMALL_FILE = 8L << 20; // bytes

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
              c -> c.json = true);

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
    List<String> all = expand();
    int n = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    FsVerityTreeBuilder builder = FsVerityTreeBuilder.of(params).withThreads(n);
    FsVerityTreeBuilder single = builder.withThreads(1);
    boolean sidecars = outTree != null || outDescriptor != null;

    PrintWriter out = io.out();
    if (sidecars) {
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
    List<Future<FsVerityDescriptor>> small = new ArrayList<>();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            n, Thread.ofPlatform().daemon().name("jverity-digest-", 1).factory());
    try {
      for (String p : all) {
        requireRegular(p);
        small.add(
            !Locations.isRemote(p) && Files.size(Path.of(p)) <= SMALL_FILE
                ? pool.submit(() -> digest(single, p, false))
                : null);
      }
      for (int i = 0; i < all.size(); i++) {
        FsVerityDescriptor d =
            small.get(i) != null ? await(small.get(i)) : digest(builder, all.get(i), true);
        say(out, d, all.get(i));
      }
    } finally {
      pool.shutdownNow();
    }
    return result(io);
  }

  /** A file's digest: its line, or under --json its object, kept for {@link #result}. */
  private void say(PrintWriter out, FsVerityDescriptor d, String file) {
    if (!json) {
      out.println(line(d, file));
      return;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("file", file);
    m.put("hashAlgorithm", params.algorithm().kernelName());
    m.put("blockSize", params.blockSize());
    m.put("salt", params.salt().length == 0 ? "-" : HexFormat.of().formatHex(params.salt()));
    m.put("dataSize", d.dataSize());
    m.put("rootHash", HexFormat.of().formatHex(d.rootHash()));
    m.put("digest", HexFormat.of().formatHex(d.digest()));
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
   * A big file is mapped (one copy from the page cache instead of two); a small one is read, which
   * costs less than setting up and tearing down a mapping; a URL through the remote source.
   */
  private BlockDevice open(String file, boolean big) throws IOException {
    if (Locations.isRemote(file)) {
      return source.open(file);
    }
    Path p = Path.of(file);
    return big ? BlockDevices.openRead(p) : FileDevice.openChannel(p, false);
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
      try (FileDevice tree =
              treeFile == null ? null : FileDevice.openChannel(treeFile.path(), true);
          FileDevice descriptors =
              descriptorFile == null ? null : FileDevice.openChannel(descriptorFile.path(), true)) {
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
      say(out, d, p);
    }
    if (descriptors != null) {
      descriptors.flush();
    }
  }

  /**
   * The files to hash: the arguments, each directory replaced by its regular files (--recursive).
   */
  private List<String> expand() throws IOException {
    List<String> all = new ArrayList<>();
    for (String f : files) {
      if (recursive && !Locations.isRemote(f) && Files.isDirectory(Path.of(f))) {
        try (Stream<Path> walk = Files.walk(Path.of(f))) {
          walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
              .sorted()
              .map(Path::toString)
              .forEach(all::add);
        }
      } else {
        all.add(f);
      }
    }
    return all;
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

  private String line(FsVerityDescriptor d, String file) {
    if (forBuiltinSig) {
      String signed = HexFormat.of().formatHex(d.signedDigest());
      return compact ? signed : signed + " " + file;
    }
    return compact ? HexFormat.of().formatHex(d.digest()) : d.fileDigest() + " " + file;
  }

  private static <T> T await(Future<T> f) throws Exception {
    try {
      return f.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception x ? x : new IllegalStateException(e.getCause());
    }
  }
}
