package org.jverity.cli.ddi;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.jverity.cli.Jverity;
import org.jverity.cli.ToolRun;
import org.jverity.testkit.Openssl;
import org.jverity.testkit.Tool;
import org.jverity.text.Json;

/**
 * DDIs for the command-line tests, made and altered with real tools: an ext4 image of given files
 * ({@code mkfs.ext4 -d}), a DDI {@code jverity ddi build} signs with a fresh RSA key, what {@code
 * ddi inspect --json} says of it, a signature partition's JSON signed by {@code openssl smime} over
 * any root hash, partitions added and renamed by {@code sgdisk}. One instance per test directory.
 */
final class DdiImages {
  /** The type UUID of an x86-64 root-verity-sig partition. */
  static final String ROOT_X86_64_VERITY_SIG = "41092b05-9fc8-4523-994f-2def0408b176";

  private final Path dir;

  /** Works in {@code dir}: the key pair is {@code signer.key}/{@code signer.crt} there. */
  DdiImages(Path dir) {
    this.dir = dir;
    Openssl.rsa(dir, "signer", 2048);
  }

  /** A directory holding only {@code signer.crt}, as a verity.d. */
  Path certDir() throws IOException {
    Path keys = dir.resolve("keys");
    if (!Files.isDirectory(keys)) {
      Files.createDirectories(keys);
      Files.copy(dir.resolve("signer.crt"), keys.resolve("signer.crt"));
    }
    return keys;
  }

  /** A 16 MiB ext4 image ({@code mkfs.ext4 -d}, 4 KiB blocks) of the directory {@code src}. */
  Path ext4(Path src, String name) {
    Path img = dir.resolve(name);
    Tool.of("mkfs.ext4").run("-q", "-b", "4096", "-d", src.toString(), img.toString(), "16M").ok();
    return img;
  }

  /**
   * {@code jverity ddi build OUT --root FS --key --cert --arch x86-64 ARGS...}; it must succeed.
   */
  Path signed(Path fs, String name, String... args) {
    Path out = dir.resolve(name);
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "ddi",
                "build",
                out.toString(),
                "--root",
                fs.toString(),
                "--key",
                dir.resolve("signer.key").toString(),
                "--cert",
                dir.resolve("signer.crt").toString(),
                "--arch",
                "x86-64",
                "--seed",
                "random"));
    cmd.addAll(List.of(args));
    ToolRun r = Jverity.run(cmd);
    assertThat(r.exitCode()).as(r.toString()).isZero();
    return out;
  }

  /**
   * A signed DDI of {@code fs} that systemd-repart 252 builds (as root): root, root-verity and
   * root-verity-sig, the file system copied in (CopyBlocks=), signed with {@code signer.key}.
   */
  Path repartSigned(Path fs, String name) throws IOException {
    Path defs = Files.createDirectories(dir.resolve("repart.d"));
    Files.writeString(
        defs.resolve("10-root.conf"),
        "[Partition]\nType=root\nVerity=data\nVerityMatchKey=root\nCopyBlocks=" + fs + "\n");
    Files.writeString(
        defs.resolve("20-root-verity.conf"),
        "[Partition]\nType=root-verity\nVerity=hash\nVerityMatchKey=root\n");
    Files.writeString(
        defs.resolve("30-root-verity-sig.conf"),
        "[Partition]\nType=root-verity-sig\nVerity=signature\nVerityMatchKey=root\n");
    Path image = dir.resolve(name);
    Tool.of("systemd-repart")
        .run(
            List.of(
                "--empty=create",
                "--size=auto",
                "--dry-run=no",
                "--definitions=" + defs,
                "--private-key=" + dir.resolve("signer.key"),
                "--certificate=" + dir.resolve("signer.crt"),
                image.toString()))
        .ok();
    return image;
  }

  /** {@code jverity ddi inspect IMAGE --json --arch x86-64}, parsed; it must succeed. */
  static Map<?, ?> inspect(Path image) {
    ToolRun r = Jverity.run("ddi", "inspect", image.toString(), "--json", "--arch", "x86-64");
    assertThat(r.exitCode()).as(r.toString()).isZero();
    return (Map<?, ?>) Json.parse(r.stdout());
  }

  /** Partition {@code number} of inspect's JSON. */
  static Map<?, ?> partition(Map<?, ?> inspect, int number) {
    for (Object o : (List<?>) inspect.get("partitions")) {
      Map<?, ?> p = (Map<?, ?>) o;
      if (((Number) p.get("number")).intValue() == number) {
        return p;
      }
    }
    throw new AssertionError("no partition " + number + " in " + inspect);
  }

  static long offset(Map<?, ?> partition) {
    return ((Number) partition.get("offset")).longValue();
  }

  static long size(Map<?, ?> partition) {
    return ((Number) partition.get("size")).longValue();
  }

  /** The root hash inspect says would be used for root. */
  static String rootHash(Map<?, ?> inspect) {
    return (String) ((Map<?, ?>) ((List<?>) inspect.get("wouldUse")).getFirst()).get("rootHash");
  }

  /**
   * A signature partition's content as systemd-repart writes it: {@code {"rootHash":…,
   * "signature":…}} over {@code rootHash}, signed by {@code openssl smime} with the signer's key (a
   * detached DER PKCS#7 without signed attributes), NUL-padded to 16 KiB.
   */
  byte[] signatureJson(String rootHash) throws IOException {
    Path content = dir.resolve("roothash-" + rootHash.substring(0, 8) + ".txt");
    Files.writeString(content, rootHash, US_ASCII);
    Path p7s = content.resolveSibling(content.getFileName() + ".p7s");
    Openssl.tool()
        .run(
            "smime",
            "-sign",
            "-binary",
            "-noattr",
            "-outform",
            "DER",
            "-in",
            content.toString(),
            "-signer",
            dir.resolve("signer.crt").toString(),
            "-inkey",
            dir.resolve("signer.key").toString(),
            "-out",
            p7s.toString())
        .ok();
    String json =
        "{\"rootHash\":\""
            + rootHash
            + "\",\"signature\":\""
            + Base64.getEncoder().encodeToString(Files.readAllBytes(p7s))
            + "\"}";
    byte[] padded = new byte[16 << 10];
    byte[] b = json.getBytes(US_ASCII);
    System.arraycopy(b, 0, padded, 0, b.length);
    return padded;
  }

  /** Writes {@code bytes} into {@code file} at {@code offset}. */
  static void write(Path file, long offset, byte[] bytes) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      while (b.hasRemaining()) {
        ch.write(b, offset + b.position());
      }
    }
  }

  /** Reads {@code length} bytes of {@code file} at {@code offset}. */
  static byte[] read(Path file, long offset, int length) throws IOException {
    try (FileChannel ch = FileChannel.open(file)) {
      ByteBuffer b = ByteBuffer.allocate(length);
      while (b.hasRemaining() && ch.read(b, offset + b.position()) > 0) {}
      return b.array();
    }
  }

  /**
   * Grows {@code image} by 1 MiB, moves its backup GPT to the new end and adds, with sgdisk, a 16
   * KiB x86-64 root-verity-sig partition labelled {@code label} that holds {@code content}; its
   * number is the table's next.
   */
  static int addSignaturePartition(Path image, String label, byte[] content) throws IOException {
    try (FileChannel ch = FileChannel.open(image, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[1]), ch.size() + (1 << 20) - 1);
    }
    Tool.of("sgdisk").run("-e", image.toString()).ok();
    int number = ((List<?>) inspect(image).get("partitions")).size() + 1;
    Tool.of("sgdisk")
        .run(
            "-n",
            number + ":0:+16K",
            "-t",
            number + ":" + ROOT_X86_64_VERITY_SIG,
            "-c",
            number + ":" + label,
            image.toString())
        .ok();
    write(image, offset(partition(inspect(image), number)), content);
    return number;
  }

  /** The UUID whose bytes, in order, are the 16 bytes of {@code hex} (32 digits). */
  static String uuidOfHex(String hex) {
    return hex.substring(0, 8)
        + "-"
        + hex.substring(8, 12)
        + "-"
        + hex.substring(12, 16)
        + "-"
        + hex.substring(16, 20)
        + "-"
        + hex.substring(20, 32);
  }
}
