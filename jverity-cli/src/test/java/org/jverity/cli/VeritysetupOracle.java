package org.jverity.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The reference implementation: cryptsetup's {@code veritysetup}, run as a child process. A missing
 * veritysetup fails the test that needs it with a message saying how to install it; the
 * compatibility tests never skip silently.
 */
final class VeritysetupOracle {
  /** Longest a single veritysetup run may take; the test images are at most a few MiB. */
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  private static final List<Path> FALLBACK_DIRS = List.of(Path.of("/usr/sbin"), Path.of("/sbin"));

  private static volatile Path binary;

  private VeritysetupOracle() {}

  /** The veritysetup executable: from PATH, else /usr/sbin or /sbin. */
  static Path binary() {
    Path b = binary;
    if (b == null) {
      b = find();
      binary = b;
    }
    return b;
  }

  private static Path find() {
    Set<Path> dirs = new LinkedHashSet<>();
    String path = System.getenv("PATH");
    if (path != null) {
      for (String d : path.split(java.io.File.pathSeparator)) {
        if (!d.isEmpty()) {
          dirs.add(Path.of(d));
        }
      }
    }
    dirs.addAll(FALLBACK_DIRS);
    for (Path d : dirs) {
      Path candidate = d.resolve("veritysetup");
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new AssertionError(
        "veritysetup not found (searched PATH, /usr/sbin and /sbin): the compatibility tests"
            + " compare jverity with it and do not skip. Install it (Debian/Ubuntu: apt-get install"
            + " cryptsetup-bin) or put it on PATH.");
  }

  /** Runs {@code veritysetup args...} and waits for it, at most {@link #TIMEOUT}. */
  static ToolRun run(String... args) {
    return run(List.of(args));
  }

  /** Runs {@code veritysetup args...} and waits for it, at most {@link #TIMEOUT}. */
  static ToolRun run(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(binary().toString());
    command.addAll(args);
    ProcessBuilder pb =
        new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
    pb.environment().put("LC_ALL", "C");
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new AssertionError("cannot start " + command + ": " + e.getMessage(), e);
    }
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    try {
      if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("veritysetup did not finish within " + TIMEOUT + ": " + command);
      }
      return new ToolRun(p.exitValue(), out.get(), err.get());
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while running " + command, e);
    } catch (ExecutionException e) {
      throw new AssertionError("cannot read the output of " + command, e.getCause());
    }
  }

  private static CompletableFuture<String> drain(InputStream in) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        },
        r -> Thread.ofVirtual().start(r));
  }

  private static java.io.File nullDevice() {
    return new java.io.File("/dev/null");
  }
}
