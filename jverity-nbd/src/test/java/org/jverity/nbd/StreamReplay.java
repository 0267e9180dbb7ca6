package org.jverity.nbd;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Replays a client byte stream through {@link NbdServer#serve} on a virtual thread, as {@code
 * nbdkit -s} reads stdin: the stream ends, so the server must see EOF and return. A server that
 * does not return within the timeout, or lets anything escape, fails the test. Test helper.
 */
final class StreamReplay {
  private StreamReplay() {}

  /** What the server wrote, after it returned. */
  static byte[] replay(NbdServer server, byte[] input, Duration timeout)
      throws InterruptedException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    AtomicReference<Throwable> escaped = new AtomicReference<>();
    Thread t =
        Thread.ofVirtual()
            .name("nbd-replay")
            .start(
                () -> {
                  try {
                    server.serve(new ByteArrayInputStream(input), out);
                  } catch (Throwable e) {
                    escaped.set(e);
                  }
                });
    if (!t.join(timeout)) {
      throw new AssertionError(
          "serve() still running after "
              + timeout.toMillis()
              + " ms on a "
              + input.length
              + "-byte stream that had ended (a hang); stack:\n"
              + stack(t));
    }
    if (escaped.get() != null) {
      throw new AssertionError("serve() threw", escaped.get());
    }
    synchronized (out) {
      return out.toByteArray();
    }
  }

  private static String stack(Thread t) {
    StringBuilder s = new StringBuilder();
    for (StackTraceElement e : t.getStackTrace()) {
      s.append("  at ").append(e).append('\n');
    }
    return s.toString();
  }
}
