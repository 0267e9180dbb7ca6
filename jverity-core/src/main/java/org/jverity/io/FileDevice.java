package org.jverity.io;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * A file (or block device node) read and written with positional {@link FileChannel} calls.
 * Thread-safe: positional reads and writes do not share the channel's position.
 *
 * <p>A file opened read-only is also memory-mapped (when it is a regular, non-empty file), and
 * byte-array reads copy straight from the mapping: one copy from the page cache instead of a
 * system call and two copies, which is most of the cost of reading besides hashing.
 */
public final class FileDevice implements WritableDevice {
  private final Path path;
  private final FileChannel channel;
  private final Arena arena; // owns the mapping; null when not mapped
  private final MemorySegment mapped; // the file's first mappedSize bytes, or null
  private final long mappedSize; // bytes

  private FileDevice(Path path, FileChannel channel, boolean map) throws IOException {
    this.path = path;
    this.channel = channel;
    long size = map && java.nio.file.Files.isRegularFile(path) ? channel.size() : 0;
    if (size > 0) {
      this.arena = Arena.ofShared();
      this.mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
      this.mappedSize = size;
    } else {
      this.arena = null;
      this.mapped = null;
      this.mappedSize = 0;
    }
  }

  /** Opens an existing file read-only. */
  public static FileDevice openRead(Path path) throws IOException {
    FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
    try {
      return new FileDevice(path, ch, true);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /**
   * Opens a file for reading and writing, creating it when missing. An existing file is neither
   * truncated nor shrunk: a hash area may share it with data or other metadata.
   */
  public static FileDevice openWrite(Path path) throws IOException {
    // Not mapped: the file grows while a tree is written into it.
    return new FileDevice(
        path,
        FileChannel.open(
            path,
            Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE)),
        false);
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
    return channel.size();
  }

  @Override
  public void readFully(long offset, ByteBuffer dst) throws IOException {
    long pos = offset;
    while (dst.hasRemaining()) {
      int n = channel.read(dst, pos);
      if (n < 0) {
        throw new EOFException(path + ": unexpected end of file at byte " + pos);
      }
      pos += n;
    }
  }

  @Override
  public void readFully(long offset, byte[] dst, int dstOffset, int length) throws IOException {
    if (mapped == null || offset < 0 || offset > mappedSize - length) {
      WritableDevice.super.readFully(offset, dst, dstOffset, length);
      return;
    }
    try {
      MemorySegment.copy(mapped, ValueLayout.JAVA_BYTE, offset, dst, dstOffset, length);
    } catch (InternalError e) {
      // The JVM reports a fault on a mapped page (the file shrank under us, or a media error) so.
      throw new IOException(path + ": read error at byte " + offset + " (file truncated while open?)", e);
    }
  }

  @Override
  public void writeFully(long offset, ByteBuffer src) throws IOException {
    long pos = offset;
    while (src.hasRemaining()) {
      pos += channel.write(src, pos);
    }
  }

  @Override
  public void flush() throws IOException {
    channel.force(false);
  }

  @Override
  public void close() throws IOException {
    try {
      if (arena != null) {
        arena.close();
      }
    } finally {
      channel.close();
    }
  }

  @Override
  public String toString() {
    return "FileDevice[" + path + "]";
  }
}
