package org.jverity.server.process;

import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jverity.server.Endpoint;
import org.jverity.server.ServerException;
import org.jverity.server.TlsMode;

/**
 * {@code --run 'CMD'}: nbdkit's captive mode. Once the server listens, CMD runs under {@code sh -c}
 * with the server's stdin, stdout and stderr and nbdkit's variables ({@code $uri}, {@code $nbd}
 * (the same URI, as nbdkit 1.24 on), {@code $tls}, {@code $port}, {@code $unixsocket}, {@code
 * $exportname}); when it exits the server stops, and jverity exits with its status (128 + N when
 * signal N ended it, as a shell reports). When the server stops first (SIGINT, SIGTERM, {@code
 * jverity close}, --exit-with-parent, a corruption under --restart-on-corruption), the command and
 * what it started get SIGTERM, then SIGKILL after {@link #KILL_AFTER_SECONDS}, and jverity exits
 * with the server's own code. Thread-safe.
 */
public final class CaptiveRun implements AutoCloseable {
  static final int KILL_AFTER_SECONDS = 5;

  /**
   * The status last passed on, so that {@link Main} does not translate it (it is not jverity's
   * code).
   */
  private static volatile int passedOn = -1;

  private final Process process;
  private volatile boolean stopped; // the server stopped it: its status is not the run's
  private volatile boolean exited;

  private CaptiveRun(Process process) {
    this.process = process;
  }

  /**
   * Starts {@code command}; {@code whenDone} runs (on another thread) once it has exited by itself.
   *
   * @param env the variables to set, nbdkit's names; a null value unsets one
   */
  public static CaptiveRun start(String command, Map<String, String> env, Runnable whenDone) {
    ProcessBuilder b = new ProcessBuilder(List.of("/bin/sh", "-c", command)).inheritIO();
    for (Map.Entry<String, String> e : env.entrySet()) {
      if (e.getValue() == null) {
        b.environment().remove(e.getKey());
      } else {
        b.environment().put(e.getKey(), e.getValue());
      }
    }
    Process p;
    try {
      p = b.start();
    } catch (IOException e) {
      throw new ServerException(
          ServerException.Reason.IO, "--run: cannot start /bin/sh: " + e.getMessage());
    }
    CaptiveRun run = new CaptiveRun(p);
    p.onExit()
        .thenRun(
            () -> {
              run.exited = true;
              if (!run.stopped) {
                whenDone.run();
              }
            });
    return run;
  }

  /**
   * nbdkit's variables for a server listening as {@code listening}, whose first export is {@code
   * exportName} at {@code uri}: {@code $tls} is 1 for --tls=on, 2 for require, unset for off;
   * {@code $port} and {@code $unixsocket} are "" when the server does not listen that way.
   */
  public static Map<String, String> environment(String uri, String exportName, Endpoint listening) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("uri", uri);
    env.put("nbd", uri);
    env.put("exportname", exportName);
    TlsMode tls = listening.tls().mode();
    env.put("tls", tls == TlsMode.REQUIRE ? "2" : tls == TlsMode.ON ? "1" : null);
    int port = listening.socket() != null ? -1 : URI.create(uri).getPort();
    env.put("port", port < 0 ? "" : Integer.toString(port));
    env.put(
        "unixsocket",
        listening.socket() == null ? "" : listening.socket().toAbsolutePath().toString());
    return env;
  }

  /** Whether the command exited by itself: then jverity exits with {@link #status()}. */
  public boolean finishedByItself() {
    return exited && !stopped;
  }

  /** The command's exit status, once it has exited; marks it as passed on as it is. */
  public int status() {
    int status = process.exitValue();
    passedOn = status;
    return status;
  }

  /** Whether {@code code} is the command's status that {@link #status()} passed on. */
  public static boolean passedOn(int code) {
    return passedOn == code;
  }

  /** Stops the command, and what it started, when it still runs. */
  @Override
  public void close() {
    if (exited || !process.isAlive()) {
      return;
    }
    stopped = true;
    List<ProcessHandle> all = process.descendants().toList(); // before the shell goes: they are its
    process.destroy();
    all.forEach(ProcessHandle::destroy);
    try {
      if (!process.waitFor(KILL_AFTER_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
      for (ProcessHandle h : all) {
        h.onExit().get(1, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      all.forEach(ProcessHandle::destroyForcibly);
    }
  }
}
