package org.jverity.remote.http;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The body of an answer that is not data (an error, a redirect, a probe): its first 4 KiB at most,
 * as text, for the S3 error code in it; the rest is never read. A body that breaks off is simply
 * what came.
 */
final class ErrorBody implements BodySubscriber<String> {
  static final int LIMIT = 4096;
  private static final Pattern CODE = Pattern.compile("<Code>([^<]{1,100})</Code>");

  private final ByteArrayOutputStream text = new ByteArrayOutputStream();
  private final CompletableFuture<String> result = new CompletableFuture<>();
  private Flow.Subscription subscription;

  /**
   * S3's {@code <Code>…</Code>} in {@code body} ({@code SlowDown}, {@code ExpiredToken}), or null.
   */
  static String s3Code(String body) {
    if (body == null) {
      return null;
    }
    Matcher m = CODE.matcher(body);
    return m.find() ? m.group(1).trim() : null;
  }

  @Override
  public synchronized void onSubscribe(Flow.Subscription s) {
    subscription = s;
    s.request(1);
  }

  @Override
  public synchronized void onNext(List<ByteBuffer> items) {
    for (ByteBuffer b : items) {
      int n = Math.min(b.remaining(), LIMIT - text.size());
      byte[] chunk = new byte[n];
      b.get(chunk);
      text.write(chunk, 0, n);
    }
    if (text.size() >= LIMIT) {
      subscription.cancel();
      done();
    } else {
      subscription.request(1);
    }
  }

  @Override
  public void onError(Throwable t) {
    done();
  }

  @Override
  public void onComplete() {
    done();
  }

  private synchronized void done() {
    result.complete(text.toString(StandardCharsets.UTF_8));
  }

  /** Bytes received. */
  synchronized int size() {
    return text.size();
  }

  @Override
  public CompletionStage<String> getBody() {
    return result;
  }
}
