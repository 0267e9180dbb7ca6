package org.jverity.testkit;

import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A real tool run as a child process, the one way tests start one. It is looked up on PATH, then in
 * {@code /usr/bin}, {@code /usr/sbin}, {@code /bin} and {@code /sbin} (veritysetup lives in sbin,
 * which a user's PATH may lack). Missing, it fails the test naming the Debian package from {@code
 * bin/tools.tsv}: tests never skip a missing oracle, and {@code bin/test} installs them.
 *
 * <p>Both output streams are drained at once, so a child that fills its stderr pipe cannot hang the
 * test while stdout is read, and every run is bounded by a timeout. Children get the system
 * directories ahead of the inherited PATH, so that {@code nbdsh} ({@code python3 -mnbd}) finds the
 * system Python that has the {@code nbd} module, not a pyenv one without it.
 *
 * <p>Immutable: {@link #in}, {@link #timeout}, {@link #input} and {@link #env} return changed
 * copies.
 */
public final class Tool {
  /** How long a run may take unless {@link #timeout} says otherwise; the test images are small. */
  public static final Duration TIMEOUT = Duration.ofSeconds(120);

  private static final List<String> SYSTEM_DIRS = List.of("/usr/bin", "/usr/sbin", "/bin", "/sbin");
  private static final String CHILD_PATH =
      String.join(File.pathSeparator, SYSTEM_DIRS)
          + File.pathSeparator
          + System.getenv().getOrDefault("PATH", "");

  private final String name;
  private final Path dir;
  private final Duration timeout;
  private final byte[] input;
  private final Map<String, String> env;

  private Tool(String name, Path dir, Duration timeout, byte[] input, Map<String, String> env) {
    this.name = name;
    this.dir = dir;
    this.timeout = timeout;
    this.input = input;
    this.env = Map.copyOf(env);
  }

  /** The tool called {@code name}; it must be in {@code bin/tools.tsv}. */
  public static Tool of(String name) {
    ToolTable.debianPackage(name);
    return new Tool(name, null, TIMEOUT, null, Map.of());
  }

  public String name() {
    return name;
  }

  /** The Debian package that has this tool. */
  public String debianPackage() {
    return ToolTable.debianPackage(name);
  }

  /** The same tool, run in {@code directory}. */
  public Tool in(Path directory) {
    return new Tool(name, directory, timeout, input, env);
  }

  /** The same tool, killed (and the test failed) after {@code limit}. */
  public Tool timeout(Duration limit) {
    return new Tool(name, dir, limit, input, env);
  }

  /** The same tool, given {@code bytes} as its standard input (else it reads nothing). */
  public Tool input(byte[] bytes) {
    return new Tool(name, dir, timeout, bytes.clone(), env);
  }

  /** The same tool, with {@code variable=value} in its environment. */
  public Tool env(String variable, String value) {
    Map<String, String> e = new LinkedHashMap<>(env);
    e.put(variable, value);
    return new Tool(name, dir, timeout, input, e);
  }

  /** The tool's absolute path; fails the test, naming the package, if it is not installed. */
  public Path path() {
    Set<String> dirs = new LinkedHashSet<>();
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (!d.isEmpty()) {
        dirs.add(d);
      }
    }
    dirs.addAll(SYSTEM_DIRS);
    return findIn(dirs);
  }

  /** The tool in the first of {@code dirs} that has it; else the test fails, naming the package. */
  Path findIn(Collection<String> dirs) {
    for (String d : dirs) {
      Path candidate = Path.of(d, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return fail(
        "%s is not installed (searched %s): install the Debian package %s"
            + " (apt-get install %s; bin/test does this when run as root)",
        name, String.join(", ", dirs), debianPackage(), debianPackage());
  }

  /** Fails the test unless the tool is installed; the path, for a caller that needs it. */
  public Path require() {
    return path();
  }

  /** Runs the tool with {@code args} to its end, whatever its exit status. */
  public ToolResult run(String... args) {
    return run(List.of(args));
  }

  /** Runs the tool with {@code args} to its end, whatever its exit status. */
  public ToolResult run(List<String> args) {
    List<String> command = command(args);
    Process p = start(builder(command));
    CompletableFuture<byte[]> out = drain(p.getInputStream());
    CompletableFuture<byte[]> err = drain(p.getErrorStream());
    try {
      try (OutputStream in = p.getOutputStream()) {
        if (input != null) {
          in.write(input);
        }
      } catch (IOException e) {
        // the child exited without reading all of its input: its exit status says why
      }
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        p.waitFor(5, TimeUnit.SECONDS);
        fail("timed out after %s:%n%s", timeout, result(command, -1, out, err));
      }
      return result(command, p.exitValue(), out, err);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted running " + command, e);
    }
  }

  /** Runs the tool with {@code args}; it must exit 0, else the test fails showing its output. */
  public ToolResult check(String... args) {
    return run(args).ok();
  }

  /** Runs the tool with {@code args}; it must exit 0, else the test fails showing its output. */
  public ToolResult check(List<String> args) {
    return run(args).ok();
  }

  /**
   * Starts the tool in the background with its standard input empty and its output, both streams,
   * going to {@code log} (a file: nothing to drain); the caller waits for it or stops it.
   */
  public Process background(Path log, String... args) {
    return start(
        builder(command(List.of(args))).redirectErrorStream(true).redirectOutput(log.toFile()));
  }

  /**
   * Starts the tool with its output streams as pipes, for a test that reads them as the tool writes
   * ({@code nbdcopy URI -} streams an image); the caller drains both and waits.
   */
  public Process start(String... args) {
    return start(builder(command(List.of(args))));
  }

  private List<String> command(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(path().toString());
    command.addAll(args);
    return command;
  }

  private ProcessBuilder builder(List<String> command) {
    ProcessBuilder b = new ProcessBuilder(command);
    if (dir != null) {
      b.directory(dir.toFile());
    }
    b.environment().put("PATH", CHILD_PATH);
    b.environment().putAll(env);
    if (input == null) {
      b.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    }
    return b;
  }

  private static Process start(ProcessBuilder b) {
    try {
      return b.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + b.command(), e);
    }
  }

  private static ToolResult result(
      List<String> command,
      int exit,
      CompletableFuture<byte[]> out,
      CompletableFuture<byte[]> err) {
    return new ToolResult(
        command, exit, out.join(), new String(err.join(), StandardCharsets.UTF_8));
  }

  /** Reads {@code in} to its end on a virtual thread; a child that died keeps what it wrote. */
  private static CompletableFuture<byte[]> drain(InputStream in) {
    CompletableFuture<byte[]> result = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> {
              ByteArrayOutputStream buf = new ByteArrayOutputStream();
              try (in) {
                in.transferTo(buf);
              } catch (IOException e) {
                // the child died or was killed: keep what was read
              }
              result.complete(buf.toByteArray());
            });
    return result;
  }
}
