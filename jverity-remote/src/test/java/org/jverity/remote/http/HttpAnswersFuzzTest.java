package org.jverity.remote.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import org.jverity.testkit.ParserContract;

/**
 * What an origin answers, as jverity reads it before a byte of it is used: the {@code
 * Content-Range} header (and the size probe's buffer, which it sizes), S3's error code in an error
 * body, and bodies in chunks of any size. A header parses to a range within what it says or to
 * null; the size probe never allocates more than it asked; a range body writes only into the bytes
 * asked for and completes only when it has them all; an error body keeps at most its limit. Nothing
 * here throws.
 */
class HttpAnswersFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void headersAreCheckedBeforeUse(FuzzedDataProvider in) {
    int status = in.consumeBoolean() ? 206 : in.consumeInt(100, 599);
    int asked = in.consumeInt(1, 1 << 20);
    String header = in.consumeRemainingAsString();
    ParserContract.holds(
        2L * header.length(),
        () -> {
          ContentRange cr = ContentRange.parse(header);
          if (cr != null) {
            if (cr.first() < 0) {
              assertThat(cr.last()).isEqualTo(-1);
            } else {
              assertThat(cr.last()).isGreaterThanOrEqualTo(cr.first());
              if (cr.total() >= 0) {
                assertThat(cr.last()).isLessThan(cr.total());
              }
            }
          }
          ByteBuffer b = new SizeProbe(asked).target(info(status, header));
          if (b != null) {
            assertThat(b.capacity()).isBetween(1, asked);
          }
          String code = ErrorBody.s3Code(header);
          if (code != null) {
            assertThat(code.length()).isLessThanOrEqualTo(100);
          }
        });
  }

  @FuzzTest(maxDuration = "2m")
  void bodiesLandOnlyWhereAsked(FuzzedDataProvider in) throws Exception {
    int before = in.consumeInt(0, 64);
    int asked = in.consumeInt(0, 8192);
    int after = in.consumeInt(0, 64);
    boolean error = in.consumeBoolean(); // the body ends in onError rather than onComplete
    List<ByteBuffer> chunks = new ArrayList<>();
    long sent = 0;
    while (in.remainingBytes() > 0 && chunks.size() < 64) {
      byte[] c = in.consumeBytes(in.consumeInt(0, 4096));
      chunks.add(ByteBuffer.wrap(c));
      sent += c.length;
    }
    byte[] buffer = new byte[before + asked + after];
    Arrays.fill(buffer, (byte) 0x5a);
    RangeBody body = new RangeBody(ByteBuffer.wrap(buffer, before, asked).slice());
    ErrorBody text = new ErrorBody();
    feed(body, chunks, error);
    feed(text, duplicates(chunks), error);
    for (int i = 0; i < buffer.length; i++) {
      if (i < before || i >= before + asked) {
        assertThat(buffer[i]).as("byte %d, outside the range asked", i).isEqualTo((byte) 0x5a);
      }
    }
    CompletableFuture<String> result = body.getBody().toCompletableFuture();
    assertThat(result).isDone();
    if (sent == asked) {
      assertThat(result.get()).isNull();
    } else {
      try {
        result.get();
        throw new AssertionError(sent + " bytes sent for " + asked + " asked, and it completed");
      } catch (ExecutionException e) {
        assertThat(e.getCause()).isInstanceOf(RangeBody.LengthMismatch.class);
      }
    }
    String kept = text.getBody().toCompletableFuture().get();
    assertThat(kept.getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(3 * ErrorBody.LIMIT); // decoding may widen a malformed byte
    assertThat(text.size()).isLessThanOrEqualTo(ErrorBody.LIMIT);
  }

  private static List<ByteBuffer> duplicates(List<ByteBuffer> chunks) {
    return chunks.stream().map(b -> b.rewind().duplicate()).toList();
  }

  /** Delivers the chunks one onNext each, as the HttpClient does, then the end. */
  private static void feed(
      HttpResponse.BodySubscriber<String> s, List<ByteBuffer> chunks, boolean error) {
    boolean[] cancelled = {false};
    s.onSubscribe(
        new Flow.Subscription() {
          @Override
          public void request(long n) {}

          @Override
          public void cancel() {
            cancelled[0] = true;
          }
        });
    for (ByteBuffer c : chunks) {
      if (cancelled[0]) {
        return; // the client stops delivering once the subscriber cancelled
      }
      s.onNext(List.of(c));
    }
    if (error) {
      s.onError(new IOException("connection reset"));
    } else {
      s.onComplete();
    }
  }

  private static HttpResponse.ResponseInfo info(int status, String contentRange) {
    HttpHeaders headers =
        HttpHeaders.of(Map.of("content-range", List.of(contentRange)), (k, v) -> true);
    return new HttpResponse.ResponseInfo() {
      @Override
      public int statusCode() {
        return status;
      }

      @Override
      public HttpHeaders headers() {
        return headers;
      }

      @Override
      public HttpClient.Version version() {
        return HttpClient.Version.HTTP_1_1;
      }
    };
  }
}
