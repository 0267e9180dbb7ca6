package org.jverity.server;

import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the Debian clients the NBD tests use (libnbd-bin, python3-libnbd, gnutls-bin, openssl). A
 * missing tool fails the test with the package to install: never a silent skip.
 */
final class ClientTools {
  /** /usr/bin first: nbdsh must find the system python3 that has the nbd module. */
  private static final String PATH = "/usr/bin:/bin:" + System.getenv().getOrDefault("PATH", "");

  private ClientTools() {}

  /** A finished process: exit code, stdout bytes, stderr text. */
  record Result(int exit, byte[] out, String err) {
    String outText() {
      return new String(out, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      String o = outText().strip();
      boolean text = o.chars().allMatch(c -> c >= 0x20 && c < 0x7f || c == '\n' || c == '\t');
      o = !text ? out.length + " bytes" : o.length() > 400 ? o.substring(0, 400) + "..." : o;
      return "exit " + exit + ", stdout: " + o + ", stderr: " + err.strip();
    }
  }

  /** Fails unless {@code tool} is on the PATH, naming the Debian package that has it. */
  static void require(String tool, String debianPackage) {
    for (String dir : PATH.split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return;
      }
    }
    fail(tool + " is not installed: apt-get install " + debianPackage);
  }

  /** Runs {@code command} in {@code dir}, killing it after {@code timeout}. */
  static Result run(Path dir, Duration timeout, String... command) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
    pb.environment().put("PATH", PATH);
    pb.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    Process p = pb.start();
    CompletableFuture<byte[]> out = drain(p.getInputStream());
    CompletableFuture<byte[]> err = drain(p.getErrorStream());
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      fail(String.join(" ", command) + ": no answer within " + timeout.toSeconds() + " s");
    }
    return new Result(p.exitValue(), out.join(), new String(err.join(), StandardCharsets.UTF_8));
  }

  /** Runs a command that must succeed. */
  static Result check(Path dir, Duration timeout, String... command) throws IOException, InterruptedException {
    Result r = run(dir, timeout, command);
    if (r.exit() != 0) {
      fail(String.join(" ", command) + ": " + r);
    }
    return r;
  }

  /** Runs a shell script (bash -e) that must succeed. */
  static Result script(Path dir, Duration timeout, String script) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("bash", "-e", "-c", script));
    return check(dir, timeout, cmd.toArray(new String[0]));
  }

  private static CompletableFuture<byte[]> drain(InputStream in) {
    return CompletableFuture.supplyAsync(() -> {
      try (in) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        in.transferTo(b);
        return b.toByteArray();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }
}
