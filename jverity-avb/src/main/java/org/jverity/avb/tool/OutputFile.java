package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * A file a command writes whole (a vbmeta image, a public-key blob): written beside its name first
 * and renamed over it, so that a failure leaves what was there before.
 */
public final class OutputFile {
  private OutputFile() {}

  /** Writes {@code bytes} as the whole of {@code file}. */
  public static void write(Path file, byte[] bytes) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp");
    try {
      Files.write(tmp, bytes);
      keepModeOf(file, tmp);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * The mode the file would have had if written in place: an existing file's, else rw-r--r-- (a
   * temporary file starts rw-------; avbtool's outputs are 0666 less the umask, 0644 usually).
   */
  private static void keepModeOf(Path file, Path tmp) throws IOException {
    if (!tmp.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      return;
    }
    Set<PosixFilePermission> mode =
        Files.exists(file)
            ? Files.getPosixFilePermissions(file)
            : PosixFilePermissions.fromString("rw-r--r--");
    Files.setPosixFilePermissions(tmp, mode);
  }
}
