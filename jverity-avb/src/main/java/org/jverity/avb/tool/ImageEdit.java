package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An image being changed in place from some offset on, as avbtool changes it (the footer commands
 * truncate the image to its original size and append), but undone on failure: the bytes past that
 * offset are first copied aside (beside the image, or in the temporary directory), and {@link
 * #close} without {@link #commit} truncates the image back and puts them back. The bytes before the
 * offset are never written, so a failure leaves the file as it was, byte for byte. Memory is
 * bounded: the copy streams through the file system.
 */
final class ImageEdit implements AutoCloseable {
  private final Path image;
  private final long keep;
  private final Path saved; // the bytes at [keep, size), or null when there were none
  private final FileChannel channel;
  private boolean committed;

  private ImageEdit(Path image, long keep, Path saved, FileChannel channel) {
    this.image = image;
    this.keep = keep;
    this.saved = saved;
    this.channel = channel;
  }

  /** Saves the bytes of {@code image} past {@code keep}, then truncates it to {@code keep}. */
  static ImageEdit from(Path image, long keep) throws IOException {
    FileChannel ch = FileChannel.open(image, StandardOpenOption.READ, StandardOpenOption.WRITE);
    Path saved = null;
    try {
      long size = ch.size();
      if (size > keep) {
        saved = tempBeside(image);
        try (FileChannel out = FileChannel.open(saved, StandardOpenOption.WRITE)) {
          copy(ch, keep, size - keep, out, 0);
          out.force(false);
        }
        ch.truncate(keep);
      }
      return new ImageEdit(image, keep, saved, ch);
    } catch (IOException | RuntimeException e) {
      if (saved != null) {
        Files.deleteIfExists(saved);
      }
      ch.close();
      throw e;
    }
  }

  long size() throws IOException {
    return channel.size();
  }

  /** Writes {@code bytes} at {@code offset}. */
  void write(long offset, byte[] bytes) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    while (b.hasRemaining()) {
      offset += channel.write(b, offset);
    }
  }

  /**
   * Makes the image exactly {@code size} bytes: truncated, or grown with zeros (a hole where the
   * file system has them, as avbtool's DONT_CARE padding).
   */
  void resize(long size) throws IOException {
    long now = channel.size();
    if (size < now) {
      channel.truncate(size);
    } else if (size > now) {
      channel.write(ByteBuffer.allocate(1), size - 1);
    }
  }

  /**
   * Puts the saved bytes back where they were, for an edit that overwrites them rather than
   * appending; a failure after this still restores them.
   */
  void putBack() throws IOException {
    channel.truncate(keep);
    if (saved != null) {
      try (FileChannel in = FileChannel.open(saved, StandardOpenOption.READ)) {
        copy(in, 0, in.size(), channel, keep);
      }
    }
  }

  /** Keeps the changes: the saved bytes are dropped. */
  void commit() throws IOException {
    channel.force(false);
    committed = true;
  }

  /** Without {@link #commit}: the image back as it was. */
  @Override
  public void close() throws IOException {
    try {
      if (!committed) {
        putBack();
        channel.force(false);
      }
    } finally {
      channel.close();
      if (saved != null) {
        Files.deleteIfExists(saved);
      }
    }
  }

  private static void copy(FileChannel from, long at, long length, FileChannel to, long toAt)
      throws IOException {
    long done = 0;
    while (done < length) {
      long n = from.transferTo(at + done, length - done, to.position(toAt + done));
      if (n <= 0) {
        throw new IOException(
            "copying " + length + " bytes at " + at + ": the file ended at " + (at + done));
      }
      done += n;
    }
  }

  /** A new empty file beside {@code image} (same file system: a fast copy), else in /tmp. */
  private static Path tempBeside(Path image) throws IOException {
    Path dir = image.toAbsolutePath().getParent();
    String prefix = "." + image.getFileName() + ".";
    try {
      return Files.createTempFile(dir, prefix, ".avb-saved");
    } catch (IOException e) {
      return Files.createTempFile(prefix, ".avb-saved");
    }
  }

  @Override
  public String toString() {
    return image.toString();
  }
}
