package org.jverity.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.jverity.tree.ProgressListener;

/**
 * A one-line progress bar on stderr, redrawn a few times a second, shown only on a terminal so
 * that piped or logged output stays clean. Thread-safe: workers only add to a counter.
 */
final class ProgressBar implements ProgressListener, AutoCloseable {
  private static final long REDRAW_MS = 200;

  private final String label;
  private final long total; // bytes
  private final PrintStream err;
  private final AtomicLong done = new AtomicLong();
  private final long started = System.nanoTime();
  private final Thread painter;
  private volatile boolean closed;

  private ProgressBar(String label, long total, PrintStream err, boolean visible) {
    this.label = label;
    this.total = Math.max(1, total);
    this.err = err;
    this.painter = visible ? Thread.ofPlatform().daemon().name("jverity-progress").start(this::paintLoop) : null;
  }

  /** A bar that draws only when stderr is a terminal (not piped or logged). */
  static ProgressBar start(String label, long total, PrintStream err) {
    boolean visible = stderrIsTerminal() && System.getenv("JVERITY_NO_PROGRESS") == null;
    return new ProgressBar(label, total, err, visible);
  }

  /**
   * Whether file descriptor 2 is a terminal. Java has no isatty; on Linux /proc tells, elsewhere
   * the JVM's console (which looks at stdin and stdout) is the best guess.
   */
  private static boolean stderrIsTerminal() {
    try {
      String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (IOException | UnsupportedOperationException e) {
      var console = System.console();
      return console != null && console.isTerminal();
    }
  }

  @Override
  public void advanced(long bytes) {
    done.addAndGet(bytes);
  }

  private void paintLoop() {
    while (!closed) {
      try {
        Thread.sleep(REDRAW_MS);
      } catch (InterruptedException e) {
        return;
      }
      if (!closed) {
        paint();
      }
    }
  }

  private synchronized void paint() {
    long d = Math.min(done.get(), total);
    int width = 30;
    int filled = (int) (width * d / total);
    double seconds = (System.nanoTime() - started) / 1e9;
    err.print("\r" + label + " [" + "#".repeat(filled) + ".".repeat(width - filled) + "] "
        + String.format("%3d%%  %s / %s  %.0f MB/s ", 100 * d / total, Units.bytes(d), Units.bytes(total),
            seconds > 0 ? d / seconds / 1e6 : 0.0) + "\033[K"); // erase what a longer line left
    err.flush();
  }

  @Override
  public void close() {
    closed = true;
    if (painter != null) {
      painter.interrupt();
      try {
        painter.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      synchronized (this) {
        err.print("\r\033[K"); // erase the bar, leaving the terminal as it was
        err.flush();
      }
    }
  }
}
