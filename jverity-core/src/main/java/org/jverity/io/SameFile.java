package org.jverity.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Whether two paths name one file: an output that must not be an input (a pid file, the command
 * line's outputs), a FEC device that is the hash device. The one place the rule is said.
 */
public final class SameFile {
  private SameFile() {}

  /**
   * Whether two paths name one file: same inode, or same block device, or (not yet created) same
   * name.
   */
  public static boolean same(Path a, Path b) throws IOException {
    boolean ea = Files.exists(a);
    boolean eb = Files.exists(b);
    if (ea && eb) {
      return Files.isSameFile(a, b) || sameBlockDevice(a, b);
    }
    if (ea || eb) {
      return false; // one exists, the other does not: not the same file
    }
    return resolved(a).equals(resolved(b));
  }

  /** Two device nodes of one block device (e.g. a copy made with mknod) are one device. */
  private static boolean sameBlockDevice(Path a, Path b) throws IOException {
    return BlockDevices.isBlockDevice(a)
        && BlockDevices.isBlockDevice(b)
        && Objects.equals(Files.getAttribute(a, "unix:rdev"), Files.getAttribute(b, "unix:rdev"));
  }

  /** A path not yet created, with its directory's links resolved when the directory exists. */
  private static Path resolved(Path p) throws IOException {
    Path abs = p.toAbsolutePath().normalize();
    Path parent = abs.getParent();
    if (parent != null && Files.isDirectory(parent)) {
      return parent.toRealPath().resolve(abs.getFileName());
    }
    return abs;
  }
}
