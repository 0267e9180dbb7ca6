package org.jverity.testkit;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An NBD export mounted as a machine without the nbd kernel module does it: {@code nbdfuse -r} at
 * {@code fuse/}, a read-only loop device over {@code fuse/nbd} ({@code losetup -r}), ext4 mounted
 * {@code -o ro} at {@link #root}. Closing undoes every step that was done, in reverse, even when an
 * earlier one failed. Needs root.
 */
public final class Ext4Mount implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final Duration BUSY_WAIT = Duration.ofSeconds(10);

  /** Where the filesystem is mounted. */
  public final Path root;

  private final Path fuse;
  private final Path log;
  private Process nbdfuse;
  private String loop;
  private boolean mounted;

  private Ext4Mount(Path work) throws IOException {
    this.fuse = Files.createDirectories(work.resolve("fuse"));
    this.root = Files.createDirectories(work.resolve("root"));
    this.log = work.resolve("nbdfuse.log");
  }

  /** Mounts the export at {@code uri}, working in {@code work}. */
  public static Ext4Mount attach(Path work, String uri) throws IOException, InterruptedException {
    Ext4Mount m = new Ext4Mount(work);
    try {
      Path pid = work.resolve("nbdfuse.pid");
      m.nbdfuse =
          Tool.of("nbdfuse").background(m.log, "-r", "-P", pid.toString(), m.fuse.toString(), uri);
      long until = System.nanoTime() + TIMEOUT.toNanos();
      while (!(Files.exists(pid) && Files.size(pid) > 0 && Files.exists(m.fuse.resolve("nbd")))) {
        if (!m.nbdfuse.isAlive() || System.nanoTime() > until) {
          fail(
              "nbdfuse did not come up (%s): %s",
              m.nbdfuse.isAlive() ? "timed out" : "exited " + m.nbdfuse.exitValue(),
              Files.readString(m.log));
        }
        Thread.sleep(20);
      }
      m.loop =
          Tool.of("losetup")
              .timeout(TIMEOUT)
              .run("-r", "-f", "--show", m.fuse.resolve("nbd").toString())
              .ok()
              .out()
              .strip();
      Tool.of("mount")
          .timeout(TIMEOUT)
          .run("-o", "ro", "-t", "ext4", m.loop, m.root.toString())
          .ok();
      m.mounted = true;
      return m;
    } catch (Throwable e) {
      try {
        m.close();
      } catch (Throwable again) {
        e.addSuppressed(again);
      }
      throw e;
    }
  }

  @Override
  public void close() throws IOException {
    List<String> failures = new ArrayList<>();
    if (mounted) {
      unmount(failures);
    }
    if (loop != null && !loop.isEmpty()) {
      undo(failures, "losetup", "-d", loop);
    }
    if (nbdfuse != null) {
      if (nbdfuse.isAlive()) {
        undo(failures, "fusermount3", "-u", fuse.toString());
      }
      try {
        if (!nbdfuse.waitFor(10, TimeUnit.SECONDS)) {
          nbdfuse.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
          failures.add("nbdfuse did not exit after fusermount3 -u; killed");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        nbdfuse.destroyForcibly();
      }
    }
    if (!failures.isEmpty()) {
      throw new IOException("cleaning up " + root + ": " + failures);
    }
  }

  /**
   * Unmounts {@link #root}, waiting while the kernel calls it busy: a read that has just returned
   * can leave the superblock referenced for a moment on a loaded machine (CI saw {@code target is
   * busy} once right after the files were read and closed). Busy for {@link #BUSY_WAIT} is a
   * failure that names the holders; the mount is then detached lazily so nothing is left behind.
   */
  private void unmount(List<String> failures) {
    long until = System.nanoTime() + BUSY_WAIT.toNanos();
    ToolResult last;
    while (true) {
      last = Tool.of("umount").timeout(TIMEOUT).run(root.toString());
      if (last.exit() == 0) {
        return;
      }
      if (!last.stderr().contains("busy") || System.nanoTime() > until) {
        break;
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    String holders;
    try {
      holders = Tool.of("fuser").timeout(TIMEOUT).run("-vm", root.toString()).toString();
    } catch (RuntimeException | AssertionError e) {
      holders = "fuser: " + e.getMessage();
    }
    failures.add(last + " (holders: " + holders + ")");
    undo(failures, "umount", "-l", root.toString());
  }

  private static void undo(List<String> failures, String tool, String... args) {
    try {
      var r = Tool.of(tool).timeout(TIMEOUT).run(args);
      if (r.exit() != 0) {
        failures.add(r.toString());
      }
    } catch (RuntimeException | AssertionError e) {
      failures.add(tool + " " + String.join(" ", args) + ": " + e.getMessage());
    }
  }
}
