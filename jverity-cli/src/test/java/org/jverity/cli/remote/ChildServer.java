package org.jverity.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jverity.cli.JsonCheck;
import org.jverity.cli.Jverity;
import org.jverity.cli.ServerProcess;
import org.jverity.cli.ToolRun;

/**
 * {@code jverity open} (or {@code serve}) in a child JVM with an environment of the test's own: the
 * AWS variables an S3 origin is reached with (never the machine's), and a runtime directory per
 * server, so that two servers of one test answer {@code status} apart. Unlike {@code
 * ServerProcess}, it can be killed with SIGKILL ({@link #kill}) to test what a crash leaves.
 */
final class ChildServer implements AutoCloseable {
  private final Process process;
  private final BufferedReader stdout;
  private final Path stderr;
  private final Path runtime;

  private ChildServer(Process process, Path stderr, Path runtime) {
    this.process = process;
    this.stdout =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.stderr = stderr;
    this.runtime = runtime;
  }

  /**
   * Starts {@code jverity args...} with the runtime directory {@code dir/run}, stderr to a file in
   * {@code dir}; {@code env} over the test's environment, from which every {@code AWS_*} variable
   * was removed first.
   */
  static ChildServer start(Path dir, Map<String, String> env, String... args) throws IOException {
    Files.createDirectories(dir);
    List<String> cmd = ServerProcess.javaCommand();
    cmd.addAll(List.of(args));
    Path err = Files.createTempFile(dir, "server", ".err");
    ProcessBuilder b = Jverity.detailed(new ProcessBuilder(cmd)).redirectError(err.toFile());
    b.environment().keySet().removeIf(k -> k.startsWith("AWS_"));
    b.environment().putAll(env);
    Path runtime = dir.resolve("run");
    b.environment().put("JVERITY_RUNTIME_DIR", runtime.toString());
    return new ChildServer(b.start(), err, runtime);
  }

  /** The next line on stdout (the URI), waiting up to a minute; fails with stderr if none comes. */
  String line() throws Exception {
    CompletableFuture<String> next =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return stdout.readLine();
              } catch (IOException e) {
                return null;
              }
            });
    String line;
    try {
      line = next.get(60, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      line = null;
    }
    assertThat(line).as("a line on stdout; stderr: %s", stderr()).isNotNull();
    return line;
  }

  /** {@code jverity status NAME --json} against this server's runtime directory. */
  Map<String, Object> status(String export) throws Exception {
    ToolRun r = Jverity.run("status", export, "--runtime-dir", runtime.toString(), "--json");
    assertThat(r.exitCode()).as("status: %s", r).isZero();
    return JsonCheck.stdout(r);
  }

  /** {@code status --json}'s {@code "remote"} object. */
  @SuppressWarnings("unchecked")
  Map<String, Object> remote(String export) throws Exception {
    Map<String, Object> m = status(export);
    assertThat(m).as("status of a remote export").containsKey("remote");
    return (Map<String, Object>) m.get("remote");
  }

  /** SIGKILL, as a crash or the OOM killer: no shutdown hook runs. Waits for the exit. */
  void kill() throws InterruptedException {
    process.destroyForcibly(); // SIGKILL on Linux
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("killed server exited").isTrue();
  }

  /** SIGTERM, not waiting for the exit. */
  void signalTerm() {
    process.destroy();
  }

  long pid() {
    return process.pid();
  }

  /** SIGTERM; the exit code. */
  int terminate() throws InterruptedException {
    process.destroy();
    return waitFor();
  }

  /** Waits up to a minute for the process to exit; its exit code. */
  int waitFor() throws InterruptedException {
    assertThat(process.waitFor(60, TimeUnit.SECONDS))
        .as("server exited; stderr: %s", stderr())
        .isTrue();
    return process.exitValue();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  String stderr() {
    try {
      return Files.readString(stderr);
    } catch (IOException e) {
      return "(" + e + ")";
    }
  }

  /** stderr's lines that jverity wrote as messages ({@code jverity: ...}). */
  List<String> messages() {
    return stderr().lines().filter(l -> l.startsWith("jverity: ")).toList();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
