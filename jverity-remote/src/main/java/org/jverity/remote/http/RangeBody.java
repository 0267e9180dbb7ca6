package org.jverity.remote.http;

import java.io.IOException;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * The body of a range answer, written straight into the caller's buffer: at most the bytes asked
 * for, whatever a {@code Content-Length} said. More is a {@link LengthMismatch} (and the rest is
 * not read), fewer too. Once {@link #abandon abandoned} (a timeout) it writes nothing more, so a
 * late packet can never land in a buffer the caller has moved on with.
 */
final class RangeBody implements BodySubscriber<String> {
  private final ByteBuffer dst;
  private final int expected;
  private final CompletableFuture<String> result = new CompletableFuture<>();
  private Flow.Subscription subscription;
  private boolean abandoned;
  private long received;

  /** The body is the exact bytes, in order, that fill {@code dst} from position to limit. */
  RangeBody(ByteBuffer dst) {
    this.dst = dst;
    this.expected = dst.remaining();
  }

  /** The body had another length than asked. */
  static final class LengthMismatch extends IOException {
    private static final long serialVersionUID = 1L;
    final boolean longer;

    LengthMismatch(String message, boolean longer) {
      super(message);
      this.longer = longer;
    }
  }

  @Override
  public synchronized void onSubscribe(Flow.Subscription s) {
    if (abandoned) {
      s.cancel();
      return;
    }
    subscription = s;
    s.request(1);
  }

  @Override
  public synchronized void onNext(List<ByteBuffer> items) {
    if (abandoned || result.isDone()) {
      return;
    }
    for (ByteBuffer b : items) {
      if (b.remaining() > dst.remaining()) {
        subscription.cancel();
        result.completeExceptionally(
            new LengthMismatch("sent more than the " + expected + " bytes asked", true));
        return;
      }
      received += b.remaining();
      dst.put(b);
    }
    subscription.request(1);
  }

  @Override
  public synchronized void onError(Throwable t) {
    // The answer's head came (this body exists only then): whatever broke, the body was cut,
    // unless every byte asked had come.
    if (dst.hasRemaining()) {
      result.completeExceptionally(new LengthMismatch(cutShort(), false));
    } else {
      result.complete(null);
    }
  }

  @Override
  public synchronized void onComplete() {
    if (dst.hasRemaining()) {
      result.completeExceptionally(new LengthMismatch(cutShort(), false));
    } else {
      result.complete(null);
    }
  }

  @Override
  public CompletionStage<String> getBody() {
    return result;
  }

  /** Stops writing into the buffer, for good; cancels the body if it is still coming. */
  synchronized void abandon() {
    abandoned = true;
    if (subscription != null) {
      subscription.cancel();
    }
  }

  /** "body cut short after R of N bytes", or null when it was whole. */
  synchronized String cutShort() {
    return dst.hasRemaining()
        ? "body cut short after " + received + " of " + expected + " bytes"
        : null;
  }

  synchronized long received() {
    return received;
  }
}
