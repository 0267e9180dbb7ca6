package org.jverity.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An output file that appears only when the command succeeds: bytes go to a temporary file beside
 * it, which is synced and renamed over it by {@link #commit}; without a commit, {@link #close}
 * deletes the temporary and the file is as it was (absent if it did not exist). So a read that
 * fails verification, or any other failure, never empties or damages an existing file, as users of
 * {@code curl -o}, {@code rsync} and {@code cp} expect.
 *
 * <p>The temporary is created as the file itself would be (mode 0666 less the umask); over an
 * existing file it takes that file's mode before its first byte. A rename gives the name a new
 * inode: other hard links to the old file keep the old content, as with {@code rsync}.
 *
 * <p>What is not a regular file (a block device, {@code /dev/null}, a pipe) cannot be replaced by a
 * rename, and is written in place, as before.
 */
public final class AtomicOutput implements AutoCloseable {
  private final Path target; // the file the caller named, links resolved
  private final Path temporary; // where bytes go; == target when written in place
  private boolean committed;

  private AtomicOutput(Path target, Path temporary) {
    this.target = target;
    this.temporary = temporary;
  }

  /** Prepares an output to {@code file}; nothing visible changes until {@link #commit}. */
  public static AtomicOutput to(Path file) throws IOException {
    boolean exists = Files.exists(file);
    if (exists && !Files.isRegularFile(file)) {
      return new AtomicOutput(file, file); // a device or a pipe: written in place
    }
    // Through a symbolic link, the file it names is replaced, not the link.
    Path target = exists ? file.toRealPath() : file.toAbsolutePath();
    Path dir = target.getParent();
    String name = target.getFileName().toString();
    if (!Files.isDirectory(dir)) {
      throw new NoSuchFileException(file.toString(), null, "no such directory");
    }
    for (int attempt = 0; ; attempt++) {
      Path tmp =
          dir.resolve(
              "."
                  + name
                  + "."
                  + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16)
                  + ".jverity-tmp");
      try {
        FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
      } catch (FileAlreadyExistsException e) {
        if (attempt < 100) {
          continue;
        }
        throw e;
      } catch (IOException e) {
        throw new IOException(
            file
                + ": cannot create a temporary file in "
                + dir
                + (e instanceof AccessDeniedException ? " (permission denied)" : "")
                + "; the output is written there first, then renamed");
      }
      AtomicOutput out = new AtomicOutput(target, tmp);
      if (exists) {
        try {
          Files.setPosixFilePermissions(tmp, Files.getPosixFilePermissions(target));
        } catch (UnsupportedOperationException e) {
          // no POSIX modes here: the default applies
        } catch (IOException e) {
          out.close();
          throw e;
        }
      }
      return out;
    }
  }

  /** Writes {@code bytes} as the whole of {@code file}, through a temporary and a commit. */
  public static void write(Path file, byte[] bytes) throws IOException {
    try (AtomicOutput out = to(file)) {
      Files.write(out.path(), bytes);
      out.commit();
    }
  }

  /** Where to write: the temporary, or the file itself for a device. */
  public Path path() {
    return temporary;
  }

  /** Syncs the bytes written and renames the temporary over the file, atomically. */
  public void commit() throws IOException {
    if (temporary.equals(target)) {
      committed = true;
      return;
    }
    try (FileChannel c = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
      c.force(true); // the data before the name: a crash after the rename leaves the whole file
    }
    try {
      Files.move(
          temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
    }
    committed = true;
    syncDirectory(target.getParent());
  }

  /** Deletes the temporary unless committed: a failed command leaves the file as it was. */
  @Override
  public void close() {
    if (!committed && !temporary.equals(target)) {
      try {
        Files.deleteIfExists(temporary);
      } catch (IOException e) {
        // nothing more to do: the file itself was not touched
      }
    }
  }

  /** Makes the rename durable; a file system that cannot sync a directory is left as it is. */
  private static void syncDirectory(Path dir) {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // the rename happened; only its durability across a crash is the file system's
    }
  }
}
