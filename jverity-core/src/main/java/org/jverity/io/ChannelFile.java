package org.jverity.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * The fallback where {@link org.jverity.posix.Posix} is not bound (Windows, other CPUs, native
 * access denied): a {@link FileChannel}. Thread-safe, but an interrupt that reaches a reading
 * thread closes the channel for every thread (ClosedByInterruptException, then
 * ClosedChannelException), and reads into heap buffers go through a temporary direct buffer per
 * thread.
 */
final class ChannelFile implements FileIo {
  private final FileChannel channel;
  private final boolean owned; // closed with this, or left open for its owner

  private ChannelFile(FileChannel channel, boolean owned) {
    this.channel = channel;
    this.owned = owned;
  }

  /** Over a channel its owner opened and closes. */
  static ChannelFile borrowing(FileChannel channel) {
    return new ChannelFile(channel, false);
  }

  /** Opens read-only, or read-write creating the file without truncating it. */
  static ChannelFile open(Path path, boolean write) throws IOException {
    return new ChannelFile(
        write
            ? FileChannel.open(
                path,
                Set.of(
                    StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE))
            : FileChannel.open(path, StandardOpenOption.READ),
        true);
  }

  @Override
  public int read(long offset, ByteBuffer dst) throws IOException {
    return Math.max(0, channel.read(dst, offset)); // -1 at end of file
  }

  @Override
  public int write(long offset, ByteBuffer src) throws IOException {
    return channel.write(src, offset);
  }

  @Override
  public long size() throws IOException {
    return channel.size();
  }

  @Override
  public void sync() throws IOException {
    channel.force(false);
  }

  @Override
  public void close() throws IOException {
    if (owned) {
      channel.close();
    }
  }
}
