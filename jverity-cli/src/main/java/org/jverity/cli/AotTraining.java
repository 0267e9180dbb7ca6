package org.jverity.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPairGenerator;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import org.jverity.cli.command.ExitCode;

/**
 * The training runs of the ahead-of-time caches (JDK 25, JEP 483/514/515): runs, in one process,
 * the commands of one group, so that group's cache holds their classes, their linked call sites
 * (lambdas, the native calls' stubs) and the method profiles that let the JIT compile their loops
 * early. {@code bin/jverity} trains the group a command line needs when its cache is missing or
 * older than the jar: {@code java -XX:AOTCacheOutput=jverity-GROUP.aot -cp jverity.jar
 * org.jverity.cli.AotTraining GROUP DIR}. DIR is scratch space; the files are left for the caller
 * to delete.
 *
 * <p>Why groups (the launcher picks one by the command's name, {@code jvm-options.sh}): a JVM loads
 * and links every class of its cache while it starts, ~10 µs each here, so one cache for every
 * command made {@code dump} load the 3,000 classes of format, FEC and the HTTP client (54 ms
 * against 45 ms from a cache of its own).
 */
public final class AotTraining {
  private AotTraining() {}

  /** The groups, as {@code jvm-options.sh} names them in {@code JVERITY_AOT_GROUPS}. */
  enum Group {
    /** Commands that read a few blocks or files and answer: dump, digest, status, help. */
    QUICK,
    /** The dm-verity commands over local images: format, verify, read. */
    VERITY,
    /** The dm-verity commands over images at URLs: the JDK's HTTP client, RemoteDevice. */
    REMOTE,
    /** avbtool's commands. */
    AVB,
    /** The servers (open, serve): the handshake, verified reads and replies, local and remote. */
    SERVER
  }

  /** Data hashed per training command: enough for the optimising compiler to take over. */
  static final int DATA_BYTES = 64 << 20;

  static final int SMALL_FILES = 200;

  static final int SMALL_DIRS = 4;

  /** The image formatted with FEC: a few rounds of every parity path. */
  static final int FEC_DATA_BYTES = 4 << 20;

  /** The AVB partition image: the hashtree and FEC paths, not their throughput. */
  static final int AVB_IMAGE_BYTES = 1 << 20;

  public static void main(String[] args) throws IOException, InterruptedException {
    Group group = args.length == 2 ? group(args[0]) : null;
    if (group == null) {
      System.err.println("usage: AotTraining quick|verity|remote|avb|server DIR");
      System.exit(ExitCode.USAGE);
    }
    Path dir = Path.of(args[1]);
    SplittableRandom random = new SplittableRandom(1);
    switch (group) {
      case QUICK -> quick(dir, random);
      case VERITY -> verity(dir, random);
      case REMOTE -> remote(dir, random);
      case AVB -> avb(dir, random);
      case SERVER -> server(dir, random);
    }
  }

  private static Group group(String name) {
    for (Group g : Group.values()) {
      if (g.name().equalsIgnoreCase(name)) {
        return g;
      }
    }
    return null;
  }

  private static void quick(Path dir, SplittableRandom random) throws IOException {
    run("--version");
    run("--help");
    run("dump", "--help");
    // A hash file to dump, made by the library's format (the command's classes stay out).
    Path data = write(dir.resolve("small.img"), bytes(random, 64 << 10));
    String hash = dir.resolve("small.hash").toString();
    run("format", data.toString(), hash);
    run("dump", hash);
    run("dump", "--json", hash);
    run("status");
    Path one = write(dir.resolve("one"), bytes(random, 4096));
    run("digest", one.toString());
    List<String> small = smallFiles(dir, random);
    List<String> digest = new ArrayList<>(List.of("digest"));
    digest.addAll(small);
    run(digest.toArray(String[]::new));
    run("digest", "--recursive", dir.resolve("tree").toString());
    run("digest", write(dir.resolve("big"), bytes(random, 8 << 20)).toString());
  }

  private static void verity(Path dir, SplittableRandom random) throws IOException {
    Path data = write(dir.resolve("data.img"), bytes(random, DATA_BYTES));
    String hash = dir.resolve("data.hash").toString();
    String rootFile = dir.resolve("root").toString();
    run("format", "--help");
    // A new hash file with a random salt and UUID, then over that file (it is copied first) with
    // given ones: the paths of a first format and of every later one.
    run("format", data.toString(), hash);
    run(
        "format",
        data.toString(),
        hash,
        "--salt",
        "5a".repeat(32),
        "--uuid",
        "00000000-0000-4000-8000-00000000beef",
        "--root-hash-file",
        rootFile);
    String root = Files.readString(Path.of(rootFile)).strip();
    run("verify", data.toString(), hash, root);
    // FEC: its classes and tables (the parity loop is native where the library is).
    Path fecData = write(dir.resolve("fec-data.img"), bytes(random, FEC_DATA_BYTES));
    run(
        "format",
        fecData.toString(),
        dir.resolve("fec-data.hash").toString(),
        "--fec-device",
        dir.resolve("fec-data.fec").toString());
    run("read", data.toString(), hash, root, "--length", "1M", "-o", dir.resolve("out").toString());
  }

  /**
   * The remote path: the JDK's HTTP client, the size probes, RemoteDevice's cache and fetches, from
   * a {@link TrainingRangeServer} on a loopback port. Where no loopback socket can be had the
   * training fails, and remote commands start without a cache.
   */
  private static void remote(Path dir, SplittableRandom random) throws IOException {
    Path data = write(dir.resolve("data.img"), bytes(random, DATA_BYTES / 4));
    String hash = dir.resolve("data.hash").toString();
    String rootFile = dir.resolve("root").toString();
    run("format", data.toString(), hash, "--root-hash-file", rootFile);
    String root = Files.readString(Path.of(rootFile)).strip();
    try (TrainingRangeServer http = new TrainingRangeServer(dir)) {
      String out = dir.resolve("out-remote").toString();
      run("read", http.url("data.img"), http.url("data.hash"), root, "--length", "4K", "-o", out);
      run("read", http.url("data.img"), http.url("data.hash"), root, "--length", "8M", "-o", out);
      run("verify", http.url("data.img"), http.url("data.hash"), root);
    }
  }

  private static void avb(Path dir, SplittableRandom random) throws IOException {
    String key = writeKey(dir.resolve("key.pem")).toString();
    String image = write(dir.resolve("system.img"), bytes(random, AVB_IMAGE_BYTES)).toString();
    String size = Integer.toString(AVB_IMAGE_BYTES + (256 << 10));
    run("avb", "--help");
    // A salt given, then one drawn with FEC; the second run finds the first's footer.
    for (String[] options :
        new String[][] {{"--do_not_generate_fec", "--salt", "00112233"}, {"--fec_num_roots=2"}}) {
      addHashtreeFooter(image, size, options);
      run("avb", "info_image", "--image", image);
      run("avb", "verify_image", "--image", image, "--accept_unsigned");
    }
    addHashtreeFooter(
        image,
        size,
        "--hash_algorithm",
        "sha256",
        "--do_not_generate_fec",
        "--algorithm",
        "SHA256_RSA2048",
        "--key",
        key);
    run("avb", "info_image", "--image", image);
    run("avb", "verify_image", "--image", image, "--key", key);
    run("avb", "erase_footer", "--image", image);
    String boot = write(dir.resolve("boot.img"), bytes(random, 64 << 10)).toString();
    run(
        "avb",
        "add_hash_footer",
        "--image",
        boot,
        "--partition_size",
        size,
        "--partition_name",
        "boot",
        "--algorithm",
        "SHA256_RSA2048",
        "--key",
        key);
    String vbmeta = dir.resolve("vbmeta.img").toString();
    run(
        "avb",
        "make_vbmeta_image",
        "--output",
        vbmeta,
        "--algorithm",
        "SHA256_RSA2048",
        "--key",
        key,
        "--include_descriptors_from_image",
        boot);
    run("avb", "info_image", "--image", vbmeta);
  }

  /** The image a training server serves: every read path, several times over. */
  static final int SERVED_BYTES = 16 << 20;

  /**
   * An {@code open} of a local image and one of an image at a URL, each on its own thread in this
   * process, read by two {@link TrainingNbdClient}s at once (sequential 256 KiB requests, then
   * random 4 KiB ones, as nbdcopy and fio read), then {@code status} and {@code close}.
   */
  private static void server(Path dir, SplittableRandom random)
      throws IOException, InterruptedException {
    Path data = write(dir.resolve("served.img"), bytes(random, SERVED_BYTES));
    String hash = dir.resolve("served.hash").toString();
    String rootFile = dir.resolve("served.root").toString();
    run("format", data.toString(), hash, "--root-hash-file", rootFile);
    Path runtime =
        Files.createDirectory(
            dir.resolve("run"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    serve(dir, runtime, "local", data.toString(), hash, rootFile);
    try (TrainingRangeServer http = new TrainingRangeServer(dir)) {
      serve(dir, runtime, "remote", http.url("served.img"), http.url("served.hash"), rootFile);
    }
  }

  private static void serve(
      Path dir, Path runtime, String name, String data, String hash, String rootFile)
      throws IOException, InterruptedException {
    Path socket = dir.resolve(name + ".sock");
    int[] code = {-1};
    StringWriter log = new StringWriter();
    Thread server =
        Thread.ofPlatform()
            .name("training-open-" + name)
            .start(
                () ->
                    code[0] =
                        Main.run(
                            new PrintWriter(log),
                            new PrintWriter(log),
                            "open",
                            data,
                            name,
                            hash,
                            "--root-hash-file",
                            rootFile,
                            "--socket",
                            socket.toString(),
                            "--runtime-dir",
                            runtime.toString()));
    for (int i = 0; !Files.exists(socket); i++) {
      if (i == 2000 || !server.isAlive()) {
        throw new IllegalStateException("training: open " + name + " did not listen: " + log);
      }
      Thread.sleep(5);
    }
    Thread second = Thread.ofPlatform().start(() -> readAll(socket, name, 1));
    readAll(socket, name, 2);
    second.join();
    run("status", "--runtime-dir", runtime.toString());
    run("close", name, "--runtime-dir", runtime.toString());
    server.join(10_000);
    if (code[0] != ExitCode.OK) {
      throw new IllegalStateException("training: open " + name + " exited " + code[0] + ": " + log);
    }
  }

  /** Two sequential passes of 256 KiB reads, then 4 KiB reads at random blocks. */
  private static void readAll(Path socket, String name, long seed) {
    try (TrainingNbdClient c = new TrainingNbdClient(socket, name)) {
      ByteBuffer big = ByteBuffer.allocate(256 << 10);
      for (int pass = 0; pass < 2; pass++) {
        for (long at = 0; at < c.size(); at += big.capacity()) {
          c.read(at, big.clear().limit((int) Math.min(big.capacity(), c.size() - at)));
        }
      }
      ByteBuffer small = ByteBuffer.allocate(4096);
      SplittableRandom random = new SplittableRandom(seed);
      for (int i = 0; i < 5000; i++) {
        c.read(random.nextLong(c.size() / 4096) * 4096, small.clear());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void addHashtreeFooter(String image, String size, String... options) {
    List<String> add =
        new ArrayList<>(
            List.of(
                "avb",
                "add_hashtree_footer",
                "--image",
                image,
                "--partition_size",
                size,
                "--partition_name",
                "system"));
    add.addAll(List.of(options));
    run(add.toArray(String[]::new));
  }

  /** An RSA-2048 key in PKCS#8 PEM, as {@code openssl genpkey} writes one. */
  private static Path writeKey(Path file) throws IOException {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      String pem =
          "-----BEGIN PRIVATE KEY-----\n"
              + Base64.getMimeEncoder(64, new byte[] {'\n'})
                  .encodeToString(g.generateKeyPair().getPrivate().getEncoded())
              + "\n-----END PRIVATE KEY-----\n";
      return Files.writeString(file, pem, StandardCharsets.US_ASCII);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("training: no RSA key generator: " + e, e);
    }
  }

  /** Small files of 4 to 64 KiB in a few directories of {@code dir/tree}, for digest. */
  private static List<String> smallFiles(Path dir, SplittableRandom random) throws IOException {
    List<String> small = new ArrayList<>();
    Path tree = dir.resolve("tree");
    for (int i = 0; i < SMALL_FILES; i++) {
      Path sub = Files.createDirectories(tree.resolve("d" + i % SMALL_DIRS));
      small.add(
          write(sub.resolve("small-" + i), bytes(random, 4096 * (1 + random.nextInt(16))))
              .toString());
    }
    return small;
  }

  private static void run(String... args) {
    StringWriter sink = new StringWriter();
    int code = Main.run(new PrintWriter(sink), new PrintWriter(sink), args);
    if (code != ExitCode.OK) { // a training run that fails teaches the cache the wrong path
      throw new IllegalStateException(
          "training: jverity " + String.join(" ", args) + " exited " + code + ": " + sink);
    }
  }

  private static Path write(Path file, byte[] bytes) throws IOException {
    return Files.write(file, bytes);
  }

  private static byte[] bytes(SplittableRandom random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }
}
