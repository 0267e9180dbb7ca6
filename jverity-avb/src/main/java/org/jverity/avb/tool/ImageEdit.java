package org.jverity.avb.tool;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jverity.io.ExitHook;
import org.jverity.io.FileDevice;
import org.jverity.io.ScratchFiles;
import org.jverity.io.WritableDevice;

/**
 * An image being changed in place from some offset on, as avbtool changes it (the footer commands
 * cut the image back to its original size and append), but undone on failure: the bytes past that
 * offset are first copied aside (beside the image, or in the temporary directory), and {@link
 * #close} without {@link #commit} cuts the image back and puts them back. The bytes before the
 * offset are never written, so a failure leaves the file as it was, byte for byte. So does the end
 * of the process before {@link #commit} (Ctrl-C, SIGTERM): an {@link ExitHook} closes {@link
 * #device} (which waits for the writes in flight and refuses later ones) and restores the image.
 * Memory is bounded: the copy streams through the file system.
 *
 * <p>Thread-safe: {@link #device} takes the parallel writes of a tree build; this class's own
 * methods are serialized with the restore.
 */
final class ImageEdit implements AutoCloseable {
  private final Path image;
  private final long keep;
  private final Path saved; // the bytes at [keep, size), or null when there were none
  private final FileChannel channel;
  private FileDevice device; // guarded by this: set when the image is cut back, before any write
  private ExitHook hook; // set once, before the bytes are saved
  private boolean committed; // guarded by this
  private boolean finished; // guarded by this: restored or committed, and closed

  private ImageEdit(Path image, long keep, Path saved, FileChannel channel) {
    this.image = image;
    this.keep = keep;
    this.saved = saved;
    this.channel = channel;
  }

  /**
   * Saves the bytes of {@code image} past {@code keep}, then truncates it to {@code keep}. The hook
   * is in place before the saving starts: a process ending while the bytes are copied aside (a
   * partition's worth, seconds) removes the copy and leaves the image untouched, one ending later
   * puts them back. One hook for both, so the two can never race over the saved file.
   */
  static ImageEdit from(Path image, long keep) throws IOException {
    FileChannel ch = FileChannel.open(image, StandardOpenOption.READ, StandardOpenOption.WRITE);
    ImageEdit edit;
    try {
      long size = ch.size();
      edit = new ImageEdit(image, keep, size > keep ? tempBeside(image) : null, ch);
      edit.hook = ExitHook.register("restore " + image, edit::finishQuietly);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
    try {
      edit.saveAndCut();
      return edit;
    } catch (IOException | RuntimeException e) {
      edit.close();
      throw e;
    }
  }

  /**
   * Copies the bytes past {@link #keep} aside (outside the lock: the hook may end it at any
   * moment), then, unless the process is ending, opens the device and cuts the image back.
   */
  private void saveAndCut() throws IOException {
    if (saved != null) {
      try (FileChannel out = FileChannel.open(saved, StandardOpenOption.WRITE)) {
        copy(channel, keep, channel.size() - keep, out, 0);
        out.force(false);
      }
    }
    synchronized (this) {
      requireOpen();
      device = FileDevice.openChannel(image, true);
      channel.truncate(keep);
    }
  }

  /** The image, for parallel writes (a tree and its FEC); closed by {@link #close}. */
  synchronized WritableDevice device() {
    return device;
  }

  /** Writes {@code bytes} at {@code offset}. */
  synchronized void write(long offset, byte[] bytes) throws IOException {
    requireOpen();
    ByteBuffer b = ByteBuffer.wrap(bytes);
    while (b.hasRemaining()) {
      offset += channel.write(b, offset);
    }
  }

  /**
   * Makes the image exactly {@code size} bytes: truncated, or grown with zeros (a hole where the
   * file system has them, as avbtool's DONT_CARE padding).
   */
  synchronized void resize(long size) throws IOException {
    requireOpen();
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
  synchronized void putBack() throws IOException {
    requireOpen();
    restore();
  }

  /** Keeps the changes: the saved bytes are dropped. */
  synchronized void commit() throws IOException {
    requireOpen();
    device.flush();
    channel.force(false);
    committed = true;
  }

  /** Without {@link #commit}: the image back as it was. */
  @Override
  public void close() throws IOException {
    hook.close(); // when the process is ending, the hook runs (or ran) finish() as well
    finish();
  }

  private synchronized void finish() throws IOException {
    if (finished) {
      return;
    }
    finished = true;
    try {
      if (device != null) { // the image was cut back: it gets the saved bytes again
        device.close(); // waits for the writes in flight; later ones fail
        if (!committed) {
          restore();
          channel.force(false);
        }
      }
    } finally {
      channel.close();
      if (saved != null) {
        Files.deleteIfExists(saved);
      }
    }
  }

  private void finishQuietly() {
    try {
      finish();
    } catch (IOException e) {
      throw new UncheckedIOException(image + ": restoring the image failed", e);
    }
  }

  private void restore() throws IOException {
    channel.truncate(keep);
    if (saved != null) {
      try (FileChannel in = FileChannel.open(saved, StandardOpenOption.READ)) {
        copy(in, 0, in.size(), channel, keep);
      }
    }
  }

  private void requireOpen() throws IOException {
    if (finished) {
      throw new IOException(image + ": the edit was abandoned (the process is ending)");
    }
  }

  /**
   * Copies {@code length} bytes into a range of {@code to} that holds nothing yet (a new file, or
   * past its end), skipping the pieces that are all zeros: a partition's padding is a hole, and
   * stays one (docs/avb.md's 4 GiB system partition around a small image would otherwise be written
   * out twice, saved and put back, by zero_hashtree).
   */
  private static void copy(FileChannel from, long at, long length, FileChannel to, long toAt)
      throws IOException {
    ByteBuffer piece = ByteBuffer.allocateDirect(COPY_PIECE);
    long done = 0;
    while (done < length) {
      piece.clear().limit((int) Math.min(COPY_PIECE, length - done));
      while (piece.hasRemaining()) {
        if (from.read(piece, at + done + piece.position()) < 0) {
          throw new IOException(
              "copying "
                  + length
                  + " bytes at "
                  + at
                  + ": the file ended at "
                  + (at + done + piece.position()));
        }
      }
      piece.flip();
      if (!allZeros(piece)) {
        while (piece.hasRemaining()) {
          to.write(piece, toAt + done + piece.position());
        }
      }
      done += piece.limit();
    }
    if (length > 0 && to.size() < toAt + length) {
      to.write(ByteBuffer.allocate(1), toAt + length - 1); // the size, ending in a hole
    }
  }

  private static final int COPY_PIECE = 1 << 20;

  /** A piece of zeros to compare pieces with. */
  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(COPY_PIECE).asReadOnlyBuffer();

  /**
   * By {@code mismatch}, the JDK's vectorized compare: a loop of our own runs interpreted in a
   * one-shot process, ~50 ms for the 4 MiB an image's old tree and padding are.
   */
  private static boolean allZeros(ByteBuffer b) {
    return b.mismatch(ZEROS.duplicate().limit(b.remaining())) == -1;
  }

  /** A new empty file beside {@code image} (same file system: a fast copy), else in /tmp. */
  private static Path tempBeside(Path image) throws IOException {
    Path dir = image.toAbsolutePath().getParent();
    String prefix = "." + image.getFileName() + ".";
    try {
      return ScratchFiles.create(dir, prefix, ".avb-saved");
    } catch (IOException e) {
      return ScratchFiles.create(null, prefix, ".avb-saved");
    }
  }

  @Override
  public String toString() {
    return image.toString();
  }
}
