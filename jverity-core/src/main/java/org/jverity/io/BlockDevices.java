package org.jverity.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import org.jverity.posix.Posix;

/**
 * Picks the fastest read-only {@link BlockDevice} for a path.
 *
 * <p>Regular files and block devices are mapped: a mapped read is a copy with no system call, and
 * on our 2-core VM random 4 KiB verified reads reach about 80% of the hash limit mapped against
 * about 60% with one {@code pread} each. Where the native file calls are bound, their large reads
 * go to {@code pread} ({@link SplitDevice}: a mapping only costs them faults and resident pages);
 * elsewhere the mapping serves all ({@link MappedDevice}). Anything else (pipes, character
 * devices), or a file the kernel will not map, is read with {@link FileDevice}.
 *
 * <p>Thread-safe (stateless).
 */
public final class BlockDevices {
  /** {@code S_IFMT} and {@code S_IFBLK} from {@code <sys/stat.h>}, the same on Linux and macOS. */
  private static final int S_IFMT = 0170000;

  private static final int S_IFBLK = 0060000;

  private BlockDevices() {}

  /**
   * Opens {@code path} read-only: mapped when it is a regular file or block device that maps, else
   * with positional reads.
   */
  public static BlockDevice openRead(Path path) throws IOException {
    if (mappable(path)) {
      try {
        return Posix.get().isPresent() ? SplitDevice.open(path) : MappedDevice.open(path);
      } catch (IOException | UnsupportedOperationException e) {
        // not mappable after all (e.g. a file system without mmap): read it with system calls
      }
    }
    return FileDevice.openRead(path);
  }

  private static boolean mappable(Path path) throws IOException {
    BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
    if (a.isRegularFile()) {
      return true;
    }
    return a.isOther() && isBlockDevice(path);
  }

  /** Whether {@code path} is a block device (following links); false where the OS cannot say. */
  public static boolean isBlockDevice(Path path) throws IOException {
    try {
      int mode = (Integer) Files.getAttribute(path, "unix:mode");
      return (mode & S_IFMT) == S_IFBLK;
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      return false; // no "unix" attribute view (Windows): do not guess
    }
  }
}
