package org.jverity.cli.command;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/**
 * Standard output for data ({@code read}, {@code cat}), telling a reader that went away from a
 * failing write. {@code jverity read ... | head} must end as {@code cat} does: quietly, once head
 * has what it wanted. cat dies of SIGPIPE; the JVM ignores SIGPIPE, so the write fails with EPIPE
 * ("Broken pipe"), which becomes {@link Closed} and, in {@link Main}, no message and exit {@link
 * ExitCode#OUTPUT_CLOSED} (what a shell reports for cat). Left open: closing it would close file
 * descriptor 1 of a JVM that runs more than this command (the tests run commands in-process).
 */
public final class Stdout {
  private Stdout() {}

  /** The reader of standard output closed it: nothing is wrong, nothing more is wanted. */
  public static final class Closed extends IOException {
    Closed(IOException cause) {
      super("standard output closed by its reader", cause);
    }
  }

  public static WritableByteChannel channel() {
    WritableByteChannel fd = new FileOutputStream(FileDescriptor.out).getChannel();
    return new WritableByteChannel() {
      @Override
      public int write(ByteBuffer src) throws IOException {
        try {
          return fd.write(src);
        } catch (IOException e) {
          throw translated(e);
        }
      }

      @Override
      public boolean isOpen() {
        return fd.isOpen();
      }

      @Override
      public void close() {}
    };
  }

  public static OutputStream stream() {
    OutputStream fd = new FileOutputStream(FileDescriptor.out);
    return new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        try {
          fd.write(b, off, len);
        } catch (IOException e) {
          throw translated(e);
        }
      }

      @Override
      public void close() {}
    };
  }

  /** EPIPE as {@link Closed}; anything else (a full disk behind a redirection) as it was. */
  private static IOException translated(IOException e) {
    return "Broken pipe".equals(e.getMessage()) ? new Closed(e) : e;
  }
}
