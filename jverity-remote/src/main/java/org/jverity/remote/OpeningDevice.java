package org.jverity.remote;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jverity.io.FilterBlockDevice;

/**
 * A remote device whose open (the size probe, redirects) is still in flight: {@link RemoteSource}
 * returns it at once, so an image's data and hash devices are probed in parallel (one round trip
 * for both, not one each). Its size and reads wait for the open and then go to the device; a failed
 * open is thrown by the first of them as it was thrown (one line), which for the core's opener is
 * still at open, since it asks the sizes at once. A prefetch hint does not wait: it is passed on
 * when the device is there.
 */
final class OpeningDevice extends FilterBlockDevice {
  /** Opens a device; may throw what an open throws. */
  interface Opener {
    RemoteDevice open() throws IOException;
  }

  private final String description;
  private final CompletableFuture<RemoteDevice> device = new CompletableFuture<>();

  /** Starts {@code opener} on a virtual thread; {@code description} names the device meanwhile. */
  OpeningDevice(String description, Opener opener) {
    this.description = description;
    Thread.ofVirtual()
        .name("jverity-open")
        .start(
            () -> {
              try {
                device.complete(opener.open());
              } catch (Throwable t) {
                device.completeExceptionally(t);
              }
            });
  }

  /** The device once open; what its open threw otherwise. */
  @Override
  protected RemoteDevice delegate() throws IOException {
    try {
      return device.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(description + ": open interrupted");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new UncheckedIOException(new IOException(cause));
    }
  }

  @Override
  public String description() {
    return description;
  }

  /** Passed on once the device is there, without waiting for it. */
  @Override
  public void prefetch(long offset, long length) {
    device.thenAccept(d -> d.prefetch(offset, length));
  }

  /** Waits for the open to end, then closes the device it made (a failed one has nothing). */
  @Override
  public void close() throws IOException {
    RemoteDevice d;
    try {
      d = delegate();
    } catch (IOException | RuntimeException e) {
      return; // it never opened: the open's failure was (or will never be) the caller's to see
    }
    d.close();
  }
}
