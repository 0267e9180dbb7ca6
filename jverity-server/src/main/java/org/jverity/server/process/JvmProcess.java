package org.jverity.server.process;

import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;
import org.jverity.server.Outcome;
import org.jverity.server.ProcessHooks;
import org.jverity.server.Server;

/**
 * The command line's process around a {@link Server}: a shutdown hook (SIGINT, SIGTERM, the JVM
 * exiting) stops the server, waits for its run to close everything, then ends the JVM with the
 * run's exit code rather than the signal's (128 + signal), which a hook cannot return to {@code
 * main}; and, for a server that reloads, SIGHUP rereads its config ({@link SighupReload}).
 */
public final class JvmProcess implements ProcessHooks {
  private final ToIntFunction<Outcome> exitStatus;

  /** {@code exitStatus}: the process's exit status for each outcome (the front end's codes). */
  public JvmProcess(ToIntFunction<Outcome> exitStatus) {
    this.exitStatus = exitStatus;
  }

  @Override
  public Installed install(Server server) {
    Thread hook = Thread.ofPlatform().name("jverity-shutdown").unstarted(() -> stop(server));
    Runtime.getRuntime().addShutdownHook(hook);
    SighupReload sighup = null;
    if (server.reloads()) {
      sighup = SighupReload.install(server::reload);
      if (sighup.ignored()) {
        server
            .log()
            .line("SIGHUP is ignored (started under nohup?): reload with `jverity reload NAME`");
      }
    }
    SighupReload installed = sighup;
    return new Installed() {
      @Override
      public void stopReloads() {
        if (installed != null) {
          installed.close();
        }
      }

      @Override
      public void remove() {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // the JVM is shutting down: the hook ends it with the run's exit code
        }
      }
    };
  }

  private void stop(Server server) {
    server.stop();
    try {
      server.awaitFinished(Server.GRACE.toSeconds() + 5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.log().flush();
    Runtime.getRuntime().halt(exitStatus.applyAsInt(server.outcome()));
  }
}
