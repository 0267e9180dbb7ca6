package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code jverity open} or {@code serve} running in a child JVM with the test class path, as the
 * process's main: it hooks SIGINT, SIGTERM and SIGHUP and exits with its code, for the tests of
 * what only a process shows (signals, a pid file, a crash, a parent's exit). stderr goes to a file;
 * stdout's lines (the URIs) are read as they come. Closing kills it, and anything it started, if it
 * still runs.
 *
 * <p>The child starts with SIGHUP at its default whatever the test's JVM inherited: under {@code
 * nohup} Maven, and every process it starts, ignore SIGHUP, and a JVM started so never sees one
 * (the reload tests would wait for a reload that cannot come). {@link #startIgnoringHangUp} starts
 * one as {@code nohup} would.
 *
 * <p>Each child has an environment of the test's own: every {@code AWS_*} variable of the machine
 * removed (an S3 origin is reached with the keys a test gives, never the machine's), and a runtime
 * directory per server ({@code dir/run}), so that two servers of one test answer {@code status}
 * apart. {@link #kill} ends one as a crash would. For a server that needs no process of its own,
 * {@link HostedServer} runs it in the test's JVM.
 */
public final class ServerProcess implements AutoCloseable {
  private final Process process;
  private final BufferedReader stdout;
  private final Path stderr;
  private final Path runtime;

  private ServerProcess(Process process, Path stderr, Path runtime) {
    this.process = process;
    this.runtime = runtime;
    this.stdout =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.stderr = stderr;
  }

  /** The java command that runs jverity's Main, for a child JVM or a client's subprocess. */
  public static List<String> javaCommand() {
    return new ArrayList<>(
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "--enable-native-access=ALL-UNNAMED",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("java.class.path"),
            Main.class.getName()));
  }

  /** SIGHUP as a service manager leaves it: at its default, so a JVM may catch it. */
  private static final List<String> HUP_DEFAULT = List.of("env", "--default-signal=HUP");

  /** SIGHUP as {@code nohup} leaves it: ignored, which a JVM cannot undo. */
  private static final List<String> HUP_IGNORED = List.of("env", "--ignore-signal=HUP");

  public static ServerProcess start(Path dir, String... args) throws IOException {
    List<String> cmd = javaCommand();
    return launch(dir, cmd, Map.of(), args);
  }

  /** As {@link #start}, with SIGHUP ignored, as under {@code nohup}. */
  static ServerProcess startIgnoringHangUp(Path dir, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(HUP_IGNORED);
    cmd.addAll(javaCommand());
    return launch(dir, cmd, Map.of(), args);
  }

  /** As {@link #start}, with {@code env} added to the server's environment (S3 keys). */
  public static ServerProcess start(Path dir, Map<String, String> env, String... args)
      throws IOException {
    return launch(dir, javaCommand(), env, args);
  }

  private static ServerProcess launch(
      Path dir, List<String> cmd, Map<String, String> env, String... args) throws IOException {
    if (!cmd.getFirst().equals("env")) {
      cmd.addAll(0, HUP_DEFAULT); // env execs java: the process id stays the server's
    }
    cmd.addAll(List.of(args));
    Files.createDirectories(dir);
    Path err = Files.createTempFile(dir, "server", ".err");
    ProcessBuilder b = Jverity.detailed(new ProcessBuilder(cmd)).redirectError(err.toFile());
    b.environment().keySet().removeIf(k -> k.startsWith("AWS_"));
    Path runtime = dir.resolve("run");
    b.environment().put("JVERITY_RUNTIME_DIR", runtime.toString());
    b.environment().putAll(env);
    return new ServerProcess(b.start(), err, runtime);
  }

  /**
   * As {@link #start}, with these JVM options (a heap, a collector: what bin/jverity gives a
   * server) in place of the tests' small heap and quick JIT, for tests of the process itself.
   */
  static ServerProcess startWithJvmOptions(Path dir, List<String> jvmOptions, String... args)
      throws IOException {
    List<String> cmd = javaCommand();
    cmd.removeAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(1, jvmOptions);
    return launch(dir, cmd, Map.of(), args);
  }

  /** The next line on stdout (a URI), waiting up to a minute; fails with stderr if none comes. */
  public String line() throws Exception {
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
    } catch (java.util.concurrent.TimeoutException e) {
      line = null;
    }
    assertThat(line).as("a line on stdout; stderr: %s", stderr()).isNotNull();
    return line;
  }

  /** What is left on stdout, read to its end: call it once the process has exited. */
  String restOfStdout() throws IOException {
    StringBuilder rest = new StringBuilder();
    for (String line; (line = stdout.readLine()) != null; ) {
      rest.append(line).append('\n');
    }
    return rest.toString();
  }

  /** The server's process id. */
  public long pid() {
    return process.pid();
  }

  /** {@code jverity status NAME --json} against this server's runtime directory. */
  public Map<String, Object> status(String export) throws Exception {
    ToolRun r = Jverity.run("status", export, "--runtime-dir", runtime.toString(), "--json");
    assertThat(r.exitCode()).as("status: %s", r).isZero();
    return JsonCheck.stdout(r);
  }

  /** {@code status --json}'s {@code "remote"} object. */
  @SuppressWarnings("unchecked")
  public Map<String, Object> remote(String export) throws Exception {
    Map<String, Object> m = status(export);
    assertThat(m).as("status of a remote export").containsKey("remote");
    return (Map<String, Object>) m.get("remote");
  }

  /** SIGKILL, as a crash or the OOM killer: no shutdown hook runs. Waits for the exit. */
  public void kill() throws InterruptedException {
    process.destroyForcibly(); // SIGKILL on Linux
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("killed server exited").isTrue();
  }

  /** SIGTERM, not waiting for the exit. */
  public void signalTerm() {
    process.destroy();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** stderr's lines that jverity wrote as messages ({@code jverity: ...}). */
  public List<String> messages() {
    return stderr().lines().filter(l -> l.startsWith("jverity: ")).toList();
  }

  /** Sends SIGTERM and returns the exit code. */
  public int terminate() throws InterruptedException {
    process.destroy(); // SIGTERM on Linux
    return waitFor();
  }

  /** Waits up to a minute for the process to exit; its exit code. */
  public int waitFor() throws InterruptedException {
    assertThat(process.waitFor(60, TimeUnit.SECONDS))
        .as("server exited; stderr: %s", stderr())
        .isTrue();
    return process.exitValue();
  }

  public String stderr() {
    try {
      return Files.readString(stderr);
    } catch (IOException e) {
      return "(" + e + ")";
    }
  }

  /** Kills what the server started (a --run command), then the server, and waits for it. */
  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
