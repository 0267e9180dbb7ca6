package org.jverity.io;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ThreadLocalRandom;

/**
 * New empty files of the owner's only (0600), as {@code Files.createTempFile} makes them, but named
 * without a {@code SecureRandom}: the JDK's seeds one from the security providers at its first use,
 * ~10 ms of a one-shot command. A name need not be unguessable: the file is created exclusively (an
 * existing one is never opened) and no one else may read it.
 */
public final class ScratchFiles {
  private ScratchFiles() {}

  private static final int ATTEMPTS = 100;

  /** {@code DIR/PREFIX<pid>-<random>SUFFIX}, created; {@code dir} null: the temporary directory. */
  public static Path create(Path dir, String prefix, String suffix) throws IOException {
    Path in = dir != null ? dir : Path.of(System.getProperty("java.io.tmpdir"));
    for (int attempt = 0; ; attempt++) {
      Path p =
          in.resolve(
              prefix
                  + ProcessHandle.current().pid()
                  + "-"
                  + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 8)
                  + suffix);
      try {
        return Files.createFile(
            p, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (UnsupportedOperationException e) { // no POSIX modes here: what the JDK can do
        return Files.createTempFile(in, prefix, suffix);
      } catch (FileAlreadyExistsException e) {
        if (attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
