package org.jverity.io;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Optional;
import org.jverity.posix.Posix;

/**
 * A file or block device node, read and written with positional system calls ({@code pread}, {@code
 * pwrite}) through the FFM API on 64-bit Linux and macOS.
 *
 * <p>Thread-safe: reads and writes are positional and share nothing. An interrupt never closes the
 * device (a {@code FileChannel} closes itself when a reading thread is interrupted, which fails
 * every other reader): an interrupted thread's read completes and its interrupt flag stays set.
 * Reads into heap arrays and heap buffers pass the array to the kernel with no copy and no
 * temporary direct buffer. {@link #close()} waits for calls in flight; later calls throw an
 * IOException. {@link #size()} seeks to the end, so a block device reports its real size.
 *
 * <p>Elsewhere (Windows, other CPUs, or when {@code --illegal-native-access=deny} refuses the
 * native calls) it falls back to a {@code FileChannel}, where an interrupt can close the device.
 * The JVM should run with {@code --enable-native-access=org.jverity.core} (module path) or {@code
 * ALL-UNNAMED} (class path); without it the JDK prints a warning on first use.
 */
public final class FileDevice implements WritableDevice {
  private final Path path;
  private final FileIo file;
  private final CloseGate gate;

  private FileDevice(Path path, FileIo file) {
    this.path = path;
    this.file = file;
    this.gate = new CloseGate(path.toString());
  }

  /** Opens an existing file or block device read-only. */
  public static FileDevice openRead(Path path) throws IOException {
    return open(path, false, false);
  }

  /**
   * Opens a file for reading and writing, creating it (mode 0644, less the umask) when missing. An
   * existing file is neither truncated nor shrunk: a hash area may share it with data or other
   * metadata.
   */
  public static FileDevice openWrite(Path path) throws IOException {
    return open(path, true, false);
  }

  /**
   * Opens with a {@code FileChannel} even where native calls work (and, {@code write}, for writing
   * too). It opens in a millisecond, where binding the native calls costs a short-lived process
   * about 0.15 s, but an interrupt of a reading thread closes it: for one-shot tools whose threads
   * nobody interrupts (formatting, a command-line check), never for a device shared by readers.
   */
  public static FileDevice openChannel(Path path, boolean write) throws IOException {
    return open(path, write, true);
  }

  /**
   * Over {@code channel}, which its owner closes ({@link #close} leaves it open), its failures
   * naming {@code shownAs}: an {@link AtomicOutput}'s temporary, named as the output.
   */
  static FileDevice borrowing(FileChannel channel, Path shownAs) {
    return new FileDevice(shownAs, ChannelFile.borrowing(channel));
  }

  private static FileDevice open(Path path, boolean write, boolean channel) throws IOException {
    Optional<Posix> posix = channel ? Optional.empty() : Posix.get();
    FileIo file =
        posix.isPresent()
            ? NativeFile.open(posix.get(), path, write)
            : ChannelFile.open(path, write);
    return new FileDevice(path, file);
  }

  public Path path() {
    return path;
  }

  @Override
  public String description() {
    return path.toString();
  }

  @Override
  public long size() throws IOException {
    gate.enter();
    try {
      return file.size();
    } finally {
      gate.exit();
    }
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    checkOffset(offset);
    if (offset > Long.MAX_VALUE - dst.remaining()) { // the kernel says EINVAL: no file ends there
      throw new EOFException(
          path
              + ": read of "
              + dst.remaining()
              + " bytes at "
              + offset
              + " (expected: end <= "
              + Long.MAX_VALUE
              + ")");
    }
    gate.enter();
    try {
      long pos = offset;
      while (dst.hasRemaining()) {
        int n;
        try {
          n = file.read(pos, dst);
        } catch (IOException e) {
          throw named(e, "read", pos);
        }
        if (n == 0) {
          throw new EOFException(
              path
                  + ": end of file at byte "
                  + pos
                  + " (expected: "
                  + dst.remaining()
                  + " more bytes for the read at "
                  + offset
                  + ")");
        }
        pos += n;
      }
    } finally {
      gate.exit();
    }
  }

  @Override
  public void writeFully(long offset, ByteBuffer src) throws IOException {
    checkOffset(offset);
    gate.enter();
    try {
      long pos = offset;
      while (src.hasRemaining()) {
        int n;
        try {
          n = file.write(pos, src);
        } catch (IOException e) {
          throw named(e, "write", pos);
        }
        if (n == 0) {
          throw new IOException(path + ": write at byte " + pos + " made no progress");
        }
        pos += n;
      }
    } finally {
      gate.exit();
    }
  }

  /**
   * The system's bare error ("Illegal seek", "Input/output error": a plain IOException, which names
   * no file) with the file and the position; other kinds (closed, interrupted) unchanged.
   */
  private IOException named(IOException e, String op, long pos) {
    if (e.getClass() != IOException.class || e.getMessage() == null) {
      return e;
    }
    String m = e.getMessage();
    return new IOException(
        path
            + ": cannot "
            + op
            + " at byte "
            + pos
            + ": "
            + Character.toLowerCase(m.charAt(0))
            + m.substring(1),
        e);
  }

  @Override
  public void flush() throws IOException {
    gate.enter();
    try {
      file.sync();
    } finally {
      gate.exit();
    }
  }

  /** Waits for calls in flight, then closes; idempotent. */
  @Override
  public void close() throws IOException {
    if (gate.close()) {
      file.close();
    }
  }

  @Override
  public String toString() {
    return "FileDevice[" + path + "]";
  }

  private void checkOffset(long offset) {
    if (offset < 0) {
      throw new IllegalArgumentException(path + ": offset: " + offset + " (expected: >= 0)");
    }
  }
}
