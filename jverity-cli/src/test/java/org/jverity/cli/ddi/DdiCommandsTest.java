package org.jverity.cli.ddi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.Jverity;
import org.jverity.cli.ServerProcess;
import org.jverity.cli.ToolRun;
import org.jverity.testkit.Openssl;
import org.jverity.testkit.Tool;
import org.jverity.testkit.Veritysetup;
import org.jverity.text.Json;

/**
 * {@code ddi build}, {@code inspect} and {@code verify} on the command line: a DDI built by an
 * ordinary user (uid 65534, where systemd-repart 252 cannot build one) that sgdisk, veritysetup and
 * openssl accept; inspect's account of it; verify's verdicts on it and on altered copies, each one
 * line with its exit code.
 */
class DdiCommandsTest {
  private static final String SEED = "0b8cbd47-7b6d-4a9d-9d3f-3d6a3f1f2a10";

  @TempDir Path dir;

  private Path ext4() throws IOException {
    Path src = Files.createDirectories(dir.resolve("src"));
    byte[] big = new byte[600_000];
    new SplittableRandom(11).nextBytes(big);
    Files.write(src.resolve("app.bin"), big);
    Path img = dir.resolve("rootfs.ext4");
    Tool.of("mkfs.ext4").run("-q", "-b", "4096", "-d", src.toString(), img.toString(), "12M").ok();
    return img;
  }

  private Path signedImage() throws IOException {
    Path fs = ext4();
    Openssl.rsa(dir, "signer", 2048);
    Path out = dir.resolve("image.raw");
    ToolRun r =
        Jverity.run(
            "ddi",
            "build",
            out.toString(),
            "--root",
            fs.toString(),
            "--key",
            dir.resolve("signer.key").toString(),
            "--cert",
            dir.resolve("signer.crt").toString(),
            "--seed",
            SEED,
            "--arch",
            "x86-64");
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    assertThat(r.stdout()).contains("root-x86-64-verity-sig").contains("Root hash: ");
    Path certs = Files.createDirectories(dir.resolve("keys"));
    Files.copy(dir.resolve("signer.crt"), certs.resolve("signer.crt"));
    return out;
  }

  @Test
  void anOrdinaryUserBuildsADdiThatTheToolsAccept() throws Exception {
    Path fs = ext4();
    Path work = Files.createDirectories(dir.resolve("user"));
    Files.copy(fs, work.resolve("rootfs.ext4"));
    Path cp = readableClassPath(dir.resolve("cp"));
    for (Path p : List.of(dir, work, cp)) {
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxrwxrwx"));
    }
    Files.setPosixFilePermissions(
        work.resolve("rootfs.ext4"), PosixFilePermissions.fromString("rw-r--r--"));
    List<String> cmd =
        new ArrayList<>(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"));
    List<String> java = ServerProcess.javaCommand();
    java.set(java.indexOf("-cp") + 1, cp.resolve("*").toString() + ":" + cp.resolve("classes"));
    cmd.addAll(java);
    cmd.addAll(
        List.of("ddi", "build", "image.raw", "--root", "rootfs.ext4", "--seed", SEED, "--json"));
    Process p = new ProcessBuilder(cmd).directory(work.toFile()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
    Path image = work.resolve("image.raw");
    assertThat(Files.getOwner(image).getName()).isEqualTo("nobody");
    Map<?, ?> result = (Map<?, ?>) Json.parse(output.substring(output.indexOf('{')));
    String root = (String) result.get("rootHash");

    assertThat(Tool.of("sgdisk").run("-v", image.toString()).ok().out())
        .contains("No problems found.");
    List<?> parts = (List<?>) result.get("partitions");
    Path data = extract(image, (Map<?, ?>) parts.get(0), "data.part");
    Path verity = extract(image, (Map<?, ?>) parts.get(1), "verity.part");
    Veritysetup.run("verify", data.toString(), verity.toString(), root).ok();

    // the same build as root, in-process, is byte-identical: the seed makes every salt and UUID
    Path again = dir.resolve("again.raw");
    assertThat(
            Jverity.run("ddi", "build", again.toString(), "--root", fs.toString(), "--seed", SEED)
                .exitCode())
        .isZero();
    assertThat(Files.mismatch(image, again)).isEqualTo(-1);
  }

  @Test
  void inspectSaysWhatWouldBeUsedAndWhatIsIgnored() throws Exception {
    Path image = signedImage();
    Files.copy(dir.resolve("signer.crt"), dir.resolve("keys/other.pem"));
    Files.writeString(dir.resolve("image.raw.roothash"), "00".repeat(32));
    ToolRun r =
        Jverity.run(
            "ddi",
            "inspect",
            image.toString(),
            "--cert-dir",
            dir.resolve("keys").toString(),
            "--arch",
            "x86-64");
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    assertThat(r.stdout())
        .contains("Would use for root: partition 1 (root-x86-64)")
        .contains("(from the signature partition)")
        .contains("signed by " + dir.resolve("keys/signer.crt"));
    assertThat(r.stderrLines())
        .contains(
            "jverity: WARNING: "
                + dir.resolve("image.raw.roothash")
                + ": ignored (systemd-dissect reads image.roothash, without .raw)",
            "jverity: WARNING: "
                + dir.resolve("keys/other.pem")
                + ": ignored (systemd reads only *.crt in "
                + dir.resolve("keys")
                + ")");
  }

  @Test
  void verifyChecksTheSignatureAndEveryBlock() throws Exception {
    Path image = signedImage();
    String keys = dir.resolve("keys").toString();
    ToolRun ok =
        Jverity.run("ddi", "verify", image.toString(), "--cert-dir", keys, "--arch", "x86-64");
    assertThat(ok.exitCode()).as(ok.stderr()).isZero();
    assertThat(ok.stdout()).startsWith("root: partition 1 (root-x86-64) verified (root hash ");

    Openssl.rsa(dir, "stranger", 2048);
    Path strangers = Files.createDirectories(dir.resolve("strangers"));
    Files.copy(dir.resolve("stranger.crt"), strangers.resolve("stranger.crt"));
    ToolRun untrusted =
        Jverity.run(
            "ddi",
            "verify",
            image.toString(),
            "--cert-dir",
            strangers.toString(),
            "--arch",
            "x86-64");
    assertThat(untrusted.exitCode()).isEqualTo(14);
    assertThat(untrusted.stderrLines()).hasSize(1);

    Map<?, ?> part =
        (Map<?, ?>)
            ((List<?>)
                    ((Map<?, ?>)
                            Json.parse(
                                Jverity.run(
                                        "ddi",
                                        "inspect",
                                        image.toString(),
                                        "--json",
                                        "--arch",
                                        "x86-64")
                                    .stdout()))
                        .get("partitions"))
                .getFirst();
    long offset = ((Number) part.get("offset")).longValue();
    try (FileChannel ch = FileChannel.open(image, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {0x42}), offset + 4096 * 5 + 9);
    }
    ToolRun bad =
        Jverity.run("ddi", "verify", image.toString(), "--cert-dir", keys, "--arch", "x86-64");
    assertThat(bad.exitCode()).isEqualTo(8);
    assertThat(bad.stderrLines())
        .containsExactly("jverity: root: partition 1 (root-x86-64): data block 5 is corrupted");
  }

  @Test
  void aBrokenImageIsOneLineAndExit19() throws Exception {
    Path image = signedImage();
    Path cut = dir.resolve("cut.raw");
    Files.write(cut, java.util.Arrays.copyOf(Files.readAllBytes(image), 3 << 20));
    ToolRun r = Jverity.run("ddi", "verify", cut.toString(), "--arch", "x86-64");
    assertThat(r.exitCode()).isEqualTo(19);
    assertThat(r.stderrLines()).singleElement().asString().contains("the image is truncated");
    ToolRun none = Jverity.run("ddi", "inspect", dir.resolve("rootfs.ext4").toString());
    assertThat(none.exitCode()).isEqualTo(19);
    assertThat(none.stderrLines()).singleElement().asString().contains("no GPT");
  }

  private static Path extract(Path image, Map<?, ?> part, String name) throws IOException {
    Path out = image.resolveSibling(name);
    long offset = ((Number) part.get("offset")).longValue();
    int size = ((Number) part.get("size")).intValue();
    try (FileChannel ch = FileChannel.open(image)) {
      ByteBuffer b = ByteBuffer.allocate(size);
      ch.read(b, offset);
      Files.write(out, b.array());
    }
    return out;
  }

  /**
   * This JVM's class path copied where another user can read it (Maven's repository is root's): the
   * jars flat, the class directories merged into one.
   */
  static Path readableClassPath(Path to) throws IOException {
    Path classes = Files.createDirectories(to.resolve("classes"));
    for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      Path p = Path.of(e);
      if (Files.isDirectory(p)) {
        try (Stream<Path> walk = Files.walk(p)) {
          for (Path f : (Iterable<Path>) walk::iterator) {
            Path target = classes.resolve(p.relativize(f).toString());
            if (Files.isDirectory(f)) {
              Files.createDirectories(target);
            } else if (!Files.exists(target)) {
              Files.copy(f, target);
            }
          }
        }
      } else if (Files.isRegularFile(p)) {
        Files.copy(p, to.resolve(p.getFileName()));
      }
    }
    try (Stream<Path> walk = Files.walk(to)) {
      for (Path f : (Iterable<Path>) walk::iterator) {
        Files.setPosixFilePermissions(
            f, PosixFilePermissions.fromString(Files.isDirectory(f) ? "rwxr-xr-x" : "rw-r--r--"));
      }
    }
    return to;
  }
}
