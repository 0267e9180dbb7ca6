package org.jverity.server.process;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.jverity.io.AtomicOutput;
import org.jverity.io.SameFile;
import org.jverity.server.ServerException;

/**
 * {@code --pid-file FILE}: the server's process id and a newline, written once it listens (so a
 * supervisor that waits for the file can connect at once), mode 0644 as nbdkit writes it, and
 * removed when the server exits, unless another process has written its own id there since. Written
 * beside and renamed over ({@link AtomicOutput}), so a reader never sees half of it.
 */
public final class PidFile implements AutoCloseable {
  private final Path file;
  private final String content;

  private PidFile(Path file, String content) {
    this.file = file;
    this.content = content;
  }

  /**
   * Refuses ({@link ServerException.Reason#INVALID_VALUE}) a pid file that is one of {@code inputs}
   * (the same file, through links: writing it would destroy that input), a directory, a device, or
   * in no directory; before anything is opened.
   *
   * @param inputs what each input file is, by path ("the data image of export root")
   */
  public static void check(Path file, Map<Path, String> inputs) throws IOException {
    if (Files.isDirectory(file)) {
      throw refused(file, "a directory");
    }
    if (Files.exists(file) && !Files.isRegularFile(file)) {
      throw refused(file, "not a regular file"); // /dev/null would be written, and made 0644
    }
    Path dir = file.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw refused(file, "not in an existing directory");
    }
    for (Map.Entry<Path, String> input : inputs.entrySet()) {
      if (SameFile.same(file, input.getKey())) {
        throw refused(file, "is " + input.getValue() + ", which it would overwrite");
      }
    }
  }

  private static ServerException refused(Path file, String what) {
    return new ServerException(
        ServerException.Reason.INVALID_VALUE,
        "--pid-file "
            + file
            + ": "
            + what
            + " (expected: a file of its own in an existing directory)");
  }

  /** Writes this process's id to {@code file}. */
  public static PidFile write(Path file) {
    String content = ProcessHandle.current().pid() + "\n";
    try (AtomicOutput o = AtomicOutput.to(file)) {
      try (WritableByteChannel w = o.writer()) {
        w.write(ByteBuffer.wrap(content.getBytes(StandardCharsets.US_ASCII))); // a few bytes: one
      }
      Files.setPosixFilePermissions(
          o.path(), PosixFilePermissions.fromString("rw-r--r--")); // whatever the umask
      o.commit();
    } catch (IOException e) {
      throw new ServerException(
          ServerException.Reason.IO, "--pid-file " + file + ": cannot write: " + e.getMessage());
    }
    return new PidFile(file, content);
  }

  /** Removes the file, when it still holds this process's id. */
  @Override
  public void close() {
    try {
      if (Files.readString(file).equals(content)) {
        Files.delete(file);
      }
    } catch (IOException e) {
      // gone already, or replaced by another process's: not ours to remove
    }
  }
}
