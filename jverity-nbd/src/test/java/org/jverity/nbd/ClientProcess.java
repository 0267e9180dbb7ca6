package org.jverity.nbd;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs real tools (NBD clients, mkfs, mount) as child processes for the integration tests, each
 * bounded by a timeout. A tool that is missing fails the test and names the Debian package that
 * has it: these tests never skip a missing client ({@code bin/test} installs them).
 *
 * <p>Children get {@code /usr/bin:/usr/sbin:/bin:/sbin} ahead of the inherited PATH, so that
 * {@code nbdsh} (which runs {@code python3 -mnbd}) finds the system Python that has the {@code nbd}
 * module, not a pyenv one without it.
 */
final class ClientProcess {
  private static final List<String> SYSTEM_DIRS = List.of("/usr/bin", "/usr/sbin", "/bin", "/sbin");
  private static final String PATH =
      String.join(":", SYSTEM_DIRS) + ":" + System.getenv().getOrDefault("PATH", "");

  private ClientProcess() {}

  /** What a finished child did. */
  record Result(List<String> command, int exit, byte[] stdout, String stderr) {
    String out() {
      return new String(stdout, UTF_8);
    }

    /** This result, if the exit status was 0; else the test fails showing everything. */
    Result ok() {
      if (exit != 0) {
        fail("command failed:%n%s", this);
      }
      return this;
    }

    @Override
    public String toString() {
      String out = out();
      return "$ " + String.join(" ", command) + "\nexit " + exit
          + "\nstdout: " + (out.length() > 4000 ? out.substring(0, 4000) + "…" : out)
          + "\nstderr: " + stderr;
    }
  }

  /** The absolute path of {@code name}; fails the test if no system directory has it. */
  static String tool(String name, String debianPackage) {
    for (String dir : SYSTEM_DIRS) {
      Path p = Path.of(dir, name);
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    return fail("%s is missing (not in %s): install the Debian package %s (bin/test does when run as root)",
        name, SYSTEM_DIRS, debianPackage);
  }

  /** Runs {@code command} to its end; past {@code timeout} it is killed and the test fails. */
  static Result run(Duration timeout, String... command) {
    return run(timeout, null, command);
  }

  /** As {@link #run(Duration, String...)}, with {@code stdin} (or nothing) as its standard input. */
  static Result run(Duration timeout, byte[] stdin, String... command) {
    Process p = start(command);
    try {
      var out = drain(p.getInputStream());
      var err = drain(p.getErrorStream());
      try (var in = p.getOutputStream()) {
        if (stdin != null) {
          in.write(stdin);
        }
      }
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        p.waitFor(5, TimeUnit.SECONDS);
        fail("timed out after %s:%n%s", timeout,
            new Result(List.of(command), -1, out.join().toByteArray(), err.join().toString(UTF_8)));
      }
      return new Result(List.of(command), p.exitValue(), out.join().toByteArray(), err.join().toString(UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted running " + List.of(command), e);
    }
  }

  /** Starts {@code command} in the background, its output going to {@code log}; the caller stops it. */
  static Process background(Path log, String... command) {
    ProcessBuilder b = builder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    try {
      return b.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + List.of(command), e);
    }
  }

  private static Process start(String... command) {
    try {
      return builder(command).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + List.of(command), e);
    }
  }

  private static ProcessBuilder builder(String... command) {
    ProcessBuilder b = new ProcessBuilder(command);
    b.environment().put("PATH", PATH);
    return b;
  }

  private static CompletableFuture<ByteArrayOutputStream> drain(InputStream in) {
    var result = new CompletableFuture<ByteArrayOutputStream>();
    Thread.ofVirtual().start(() -> {
      var buf = new ByteArrayOutputStream();
      try (in) {
        in.transferTo(buf);
      } catch (IOException e) {
        // the child died or was killed: keep what was read
      }
      result.complete(buf);
    });
    return result;
  }
}
