package org.jverity.cli.term;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.jverity.tree.ProgressListener;

/**
 * A one-line progress bar on stderr, redrawn a few times a second, shown only on a terminal so that
 * piped or logged output stays clean. It fits the terminal's width ({@link TerminalColumns}), shows
 * the rate of the last second ({@link RateWindow}) and, once {@link #finish() finished}, stays on
 * screen at 100%. Thread-safe: workers only add to a counter.
 */
public final class ProgressBar implements ProgressListener, AutoCloseable {
  private static final long REDRAW_MS = 200;

  private final String label;
  private final long total; // bytes
  private final PrintStream err;
  private final Path terminal; // the terminal stderr is on; null when the bar is not shown
  private final AtomicLong done = new AtomicLong(); // bytes
  private final long started = System.nanoTime();
  private final Thread painter;
  private volatile boolean closed;
  private volatile boolean finished;
  // Painter state, guarded by this:
  private RateWindow rate;
  private int columns;
  private boolean painted; // a frame is on screen

  private ProgressBar(String label, long total, PrintStream err, Path terminal) {
    this.label = label;
    this.total = Math.max(1, total);
    this.err = err;
    this.terminal = terminal;
    this.painter =
        terminal == null
            ? null
            : Thread.ofPlatform().daemon().name("jverity-progress").start(this::paintLoop);
  }

  /** A bar that draws only when stderr is a terminal (not piped or logged). */
  public static ProgressBar start(String label, long total, PrintStream err) {
    Path tty = System.getenv("JVERITY_NO_PROGRESS") == null ? terminalOf(2) : null;
    return new ProgressBar(label, total, err, tty);
  }

  /** A bar that never draws: a listener that only counts. */
  public static ProgressBar hidden(String label, long total, PrintStream err) {
    return new ProgressBar(label, total, err, null);
  }

  /**
   * The terminal device file descriptor {@code fd} is on, or null when it is not a terminal. Java
   * has no isatty; on Linux /proc tells, elsewhere the JVM's console (which looks at stdin and
   * stdout) is the best guess.
   */
  public static Path terminalOf(int fd) {
    try {
      Path target = Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd));
      String t = target.toString();
      return t.startsWith("/dev/pts/") || t.startsWith("/dev/tty") ? target : null;
    } catch (IOException | UnsupportedOperationException e) {
      var console = System.console();
      return console != null && console.isTerminal() ? Path.of("/dev/tty") : null;
    }
  }

  @Override
  public void advanced(long bytes) {
    done.addAndGet(bytes);
  }

  /**
   * The work is done: close() leaves the bar on screen at 100% rather than erasing it (nothing is
   * left when no frame was drawn: quick work shows no bar at all).
   */
  public void finish() {
    done.set(total);
    finished = true;
  }

  private void paintLoop() {
    synchronized (this) {
      columns = TerminalColumns.of(System.getenv("COLUMNS"), terminal);
      rate = new RateWindow(started);
    }
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
    rate.add(System.nanoTime(), d);
    // \r: back to the start of the line; ESC[K: erase what a longer frame left after the cursor.
    err.print(
        "\r" + ProgressLine.render(label, d, total, rate.bytesPerSecond(), columns) + "\033[K");
    err.flush();
    painted = true;
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
        if (!painted) {
          return; // nothing on screen to finish or erase
        }
        if (finished) {
          paint(); // the last frame: 100%
          err.print("\n");
        } else {
          err.print("\r\033[K"); // failed: erase the bar, so the error starts a clean line
        }
        err.flush();
      }
    }
  }
}
