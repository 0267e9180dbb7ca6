package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real NBD clients (libnbd-bin: nbdinfo, nbdcopy; python3-libnbd: nbdsh), run as processes. A
 * missing client fails the test, naming the Debian package to install; never a silent skip.
 */
public final class NbdClients {
  private NbdClients() {}

  /** Fails unless {@code tool} is installed, saying which package has it. */
  public static void require(String tool, String debianPackage) {
    if (!Files.isExecutable(Path.of("/usr/bin", tool))) {
      fail(tool + " is not installed: install it (Debian: apt-get install " + debianPackage
          + "; bin/test does this when run as root)");
    }
  }

  /** Runs a client to the end; its stdout as text (exit code checked). */
  public static ToolRun run(String... command) throws IOException, InterruptedException {
    Process p = start(command);
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("%s finished", List.of(command)).isTrue();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    return new ToolRun(p.exitValue(), new String(out, StandardCharsets.UTF_8), err);
  }

  /** {@code nbdcopy SOURCE -}: the SHA-256 of what the client read, hex; fails if the copy fails. */
  static String sha256OfCopy(String uri) throws IOException, InterruptedException {
    require("nbdcopy", "libnbd-bin");
    Process p = start("nbdcopy", uri, "-");
    String digest = sha256(p.getInputStream());
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("nbdcopy %s: %s", uri, err).isZero();
    return digest;
  }

  static Process start(String... command) throws IOException {
    ProcessBuilder b = Jverity.detailed(new ProcessBuilder(command));
    // nbdsh is a Python script: /usr/bin's python3 has the libnbd module, another one on PATH may not.
    b.environment().put("PATH", "/usr/bin:" + System.getenv().getOrDefault("PATH", "/bin"));
    return b.start();
  }

  static String sha256(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return sha256(in);
    }
  }

  static String sha256(InputStream in) throws IOException {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        d.update(buf, 0, n);
      }
      return HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** A list of strings, for building command lines. */
  static List<String> list(List<String> head, String... tail) {
    List<String> all = new ArrayList<>(head);
    all.addAll(List.of(tail));
    return all;
  }
}
