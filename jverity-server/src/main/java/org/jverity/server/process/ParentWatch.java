package org.jverity.server.process;

import java.time.Duration;
import org.jverity.server.ServerLog;

/**
 * {@code --exit-with-parent}: stops the server when the process that started it exits, as nbdkit's
 * option does. nbdkit asks Linux for a signal (prctl PR_SET_PDEATHSIG); Java has no prctl, and that
 * signal comes when the parent's *thread* that forked exits, which a multithreaded parent (a JVM, a
 * Python test) does while it lives on. So this looks instead, every {@link #PERIOD}: an orphaned
 * process is given a new parent (init or a subreaper), so a parent id that changed means the parent
 * has exited. Reading /proc/self/stat twice a second costs nothing measurable. One virtual thread;
 * {@link #close()} stops it.
 */
public final class ParentWatch implements AutoCloseable {
  static final Duration PERIOD = Duration.ofMillis(500);

  private final Thread thread;

  private ParentWatch(Thread thread) {
    this.thread = thread;
  }

  /**
   * Runs {@code stop} once, when {@code parent} (this process's parent when the server began, from
   * {@link #parentPid()}) is no longer its parent, at once if it already has gone.
   */
  public static ParentWatch start(long parent, ServerLog log, Runnable stop) {
    Thread t =
        Thread.ofVirtual()
            .name("jverity-parent-watch")
            .start(
                () -> {
                  try {
                    while (parentPid() == parent) {
                      Thread.sleep(PERIOD);
                    }
                  } catch (InterruptedException e) {
                    return; // closed: the server is stopping anyway
                  }
                  log.line(
                      "parent process "
                          + parent
                          + " exited: stopping the server (--exit-with-parent)");
                  stop.run();
                });
    return new ParentWatch(t);
  }

  /** This process's parent now. */
  public static long parentPid() {
    return ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
  }

  @Override
  public void close() {
    thread.interrupt();
  }
}
