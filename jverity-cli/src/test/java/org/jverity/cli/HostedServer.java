package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code jverity open} or {@code serve} running in the test's JVM, through {@link Main#run} on a
 * thread of its own: the command line as a user gives it, with the status sockets in {@code
 * dir/run} (as {@link ServerProcess}'s child). Run so, the server hooks no signal and never ends
 * the JVM ({@code Io.ownsProcess}); it stops as {@code jverity close} stops it, each export it
 * printed closed through its status socket, the last stopping the server with exit code 0, as
 * SIGTERM would. For what only a process shows (signals, a pid, what a crash leaves, fd 1), use
 * {@link ServerProcess}.
 */
public final class HostedServer implements AutoCloseable {
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final StringWriter stderr = new StringWriter();
  private final Path runtime;
  private final CompletableFuture<Integer> exit = new CompletableFuture<>();
  private final Set<String> exports = new LinkedHashSet<>(); // named in the URIs printed

  private HostedServer(Path runtime) {
    this.runtime = runtime;
  }

  /** Starts {@code jverity args... --runtime-dir dir/run}. */
  public static HostedServer start(Path dir, String... args) {
    HostedServer s = new HostedServer(dir.resolve("run"));
    List<String> all = new ArrayList<>(Arrays.asList(args));
    all.addAll(List.of("--runtime-dir", s.runtime.toString()));
    PrintWriter out = new PrintWriter(new LineWriter(s.lines), true);
    PrintWriter err = new PrintWriter(s.stderr, true);
    Thread.ofPlatform()
        .name("hosted-jverity")
        .start(
            () -> {
              try {
                s.exit.complete(
                    Main.run(out, err, Jverity.environment(), all.toArray(String[]::new)));
              } catch (Throwable e) {
                s.exit.completeExceptionally(e);
              }
            });
    return s;
  }

  /** The next line on stdout (a URI), waiting up to a minute; fails with stderr if none comes. */
  public String line() throws Exception {
    String line = lines.poll(60, TimeUnit.SECONDS);
    assertThat(line).as("a line on stdout; stderr: %s", stderr()).isNotNull();
    exports.add(exportOf(line));
    return line;
  }

  /** What is left on stdout: call it once the server has ended. */
  String restOfStdout() {
    StringBuilder rest = new StringBuilder();
    for (String line; (line = lines.poll()) != null; ) {
      rest.append(line).append('\n');
    }
    return rest.toString();
  }

  /**
   * Closes each export it printed (the last stops the server, as SIGTERM does) and returns the exit
   * code.
   */
  public int terminate() throws Exception {
    for (String name : exports) {
      if (!exit.isDone()) {
        Jverity.run("close", name, "--runtime-dir", runtime.toString());
      }
    }
    return waitFor();
  }

  /** Waits up to a minute for the run to end; its exit code. */
  public int waitFor() throws Exception {
    try {
      return exit.get(60, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("the server did not end within a minute; stderr: " + stderr());
    } catch (ExecutionException e) {
      throw new AssertionError("the server's run threw; stderr: " + stderr(), e.getCause());
    }
  }

  /** Everything it wrote on stderr so far. */
  public String stderr() {
    return stderr.toString();
  }

  /** Stops it if it still runs (a test that failed half way), so the next test has the ports. */
  @Override
  public void close() throws Exception {
    if (!exit.isDone()) {
      terminate();
    }
  }

  /** The export an NBD URI names: its path without the leading slash. */
  private static String exportOf(String line) throws Exception {
    String uri = line.startsWith("{") ? (String) JsonCheck.object(line).get("uri") : line;
    String path = URI.create(uri).getPath();
    return path.startsWith("/") ? path.substring(1) : path;
  }

  /** A writer that hands each complete line to a queue. */
  private static final class LineWriter extends Writer {
    private final BlockingQueue<String> lines;
    private final StringBuilder partial = new StringBuilder();

    LineWriter(BlockingQueue<String> lines) {
      this.lines = lines;
    }

    @Override
    public synchronized void write(char[] buf, int off, int len) {
      for (int i = off; i < off + len; i++) {
        if (buf[i] == '\n') {
          lines.add(partial.toString());
          partial.setLength(0);
        } else {
          partial.append(buf[i]);
        }
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }
}
