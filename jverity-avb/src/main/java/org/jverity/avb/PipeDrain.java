package org.jverity.avb;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Arrays;

/**
 * A child process's output read to its end on a virtual thread, so the child never blocks on a full
 * pipe and the caller waits where an interrupt reaches it ({@code Process.waitFor}), not in a read.
 * At most {@code limit} bytes are kept, the first or the last, whatever the child writes.
 */
final class PipeDrain {
  private final Thread thread;
  private final ByteArrayOutputStream kept = new ByteArrayOutputStream();

  private PipeDrain(InputStream in, int limit, boolean last) {
    thread =
        Thread.ofVirtual()
            .start(
                () -> {
                  byte[] buf = new byte[8192];
                  try (in) {
                    for (int n; (n = in.read(buf)) >= 0; ) {
                      synchronized (kept) {
                        if (!last) {
                          kept.write(buf, 0, Math.min(n, limit - kept.size()));
                        } else {
                          kept.write(buf, 0, n);
                          if (kept.size() > 2 * limit) {
                            byte[] all = kept.toByteArray();
                            kept.reset();
                            kept.write(all, all.length - limit, limit);
                          }
                        }
                      }
                    }
                  } catch (IOException e) {
                    // closed under us (the child was stopped): what was read is what it wrote
                  }
                });
  }

  /** Keeps the first {@code limit} bytes. */
  static PipeDrain first(InputStream in, int limit) {
    return new PipeDrain(in, limit, false);
  }

  /** Keeps the last {@code limit} bytes (or somewhat more). */
  static PipeDrain last(InputStream in, int limit) {
    return new PipeDrain(in, limit, true);
  }

  /** Waits for the end of the output; then the bytes kept. */
  byte[] bytes() throws InterruptedIOException {
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading a child process's output");
    }
    synchronized (kept) {
      return kept.toByteArray();
    }
  }

  /** The last non-blank line kept, stripped; empty if none. */
  String lastLine() throws InterruptedIOException {
    String[] lines = new String(bytes(), java.nio.charset.StandardCharsets.UTF_8).split("\n");
    return Arrays.stream(lines)
        .filter(l -> !l.isBlank())
        .reduce((a, b) -> b)
        .map(String::strip)
        .orElse("");
  }
}
