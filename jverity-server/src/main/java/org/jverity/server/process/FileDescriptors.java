package org.jverity.server.process;

import java.io.IOException;
import org.jverity.posix.Posix;

/**
 * The three descriptor calls socket activation needs ({@code dup dup2 close}): Java has no other
 * way to move a descriptor it did not open. Through the core's one binding of the C library ({@link
 * Posix}); failures are an {@link IOException} naming the call and errno. Thread-safe.
 */
final class FileDescriptors {
  private final Posix posix;

  private FileDescriptors(Posix posix) {
    this.posix = posix;
  }

  private static final class Holder {
    static final FileDescriptors INSTANCE =
        new FileDescriptors(
            Posix.get()
                .orElseThrow(
                    () ->
                        new IllegalStateException(
                            "socket activation needs the C library's dup, dup2 and close"
                                + " (64-bit Linux or macOS, native access allowed)")));
  }

  static FileDescriptors get() {
    return Holder.INSTANCE;
  }

  /** A new descriptor for {@code fd}'s socket or file. */
  int dup(int fd) throws IOException {
    return check("dup(" + fd + ")", posix.dup(fd));
  }

  /** Makes {@code to} a copy of {@code from}, closing what {@code to} was. */
  void dup2(int from, int to) throws IOException {
    check("dup2(" + from + ", " + to + ")", posix.dup2(from, to));
  }

  /** Closes once (on Linux the descriptor is gone even on EINTR). */
  void close(int fd) throws IOException {
    check("close(" + fd + ")", posix.close(fd));
  }

  private int check(String call, int r) throws IOException {
    if (r < 0) {
      throw new IOException(call + ": failed (" + posix.describe(-r) + ")");
    }
    return r;
  }
}
