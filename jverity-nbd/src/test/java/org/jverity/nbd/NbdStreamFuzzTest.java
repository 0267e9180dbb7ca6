package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.verify.ReaderOptions;

/**
 * A client's byte stream through {@link NbdServer#serve}, coverage-guided: the handshake (client
 * flags, then options: {@link Handshake}), and the request stream after a well-formed handshake
 * ({@link RequestHeader}, {@link RequestValidation}, {@link Connection}). Each stream must end
 * promptly once its input has, with nothing escaping the server, no internal error, and output that
 * parses as well-formed replies whose data are the image's bytes ({@link ServerOutput}). Seeds:
 * nbdkit's fuzzing corpus (as in {@code nbd-corpus/}) for the handshake; requests of each kind for
 * the request stream.
 */
class NbdStreamFuzzTest {
  /** Generous: a loaded 2-core machine, instrumented code; a hang takes forever. */
  private static final Duration PROMPTLY = Duration.ofSeconds(10);

  private static Path dir;
  private static ServedImage image;
  private static byte[] bytes;
  private static final Queue<String> disconnects = new ConcurrentLinkedQueue<>();

  @BeforeAll
  static void serve() throws IOException {
    dir = Files.createTempDirectory("nbd-stream-fuzz");
    bytes = NbdFuzzTest.imageBytes(64); // 256 KiB, every 16th block zero
    Path data = Files.write(dir.resolve("data.img"), bytes);
    NbdEvents events =
        new NbdEvents() {
          @Override
          public void disconnected(String peer, String reason) {
            disconnects.add(reason);
          }
        };
    image = ServedImage.format(dir, data, ReaderOptions.DEFAULTS, ServerLimits.DEFAULTS, events);
  }

  @AfterAll
  static void stop() throws IOException {
    image.close();
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @FuzzTest(maxDuration = "3m")
  void handshakeEndsInWellFormedReplies(byte[] client) throws Exception {
    replay(client);
  }

  /**
   * The first byte picks a handshake (modulo 4: export name, go, structured go, structured go with
   * base:allocation), the rest is the request stream.
   */
  @FuzzTest(maxDuration = "3m")
  void requestsGetWellFormedReplies(byte[] requests) throws Exception {
    if (requests.length == 0) {
      return;
    }
    ClientStream s = new ClientStream().clientFlags(Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES);
    switch (Math.floorMod(requests[0], 4)) {
      case 0 -> s.exportName("");
      case 1 -> s.go("", Nbd.INFO_BLOCK_SIZE);
      case 2 -> s.structuredReply().go("");
      default ->
          s.structuredReply()
              .metaContext(NbdOption.SET_META_CONTEXT.wire, "", Nbd.BASE_ALLOCATION)
              .go("");
    }
    byte[] rest = new byte[requests.length - 1];
    System.arraycopy(requests, 1, rest, 0, rest.length);
    replay(s.raw(rest).bytes());
  }

  private static void replay(byte[] input) throws InterruptedException {
    disconnects.clear();
    byte[] out = StreamReplay.replay(image.server, input, PROMPTLY);
    ServerOutput.parse(out, bytes, ServerOutput.Requests.scan(input));
    assertThat(disconnects).noneMatch(r -> r.startsWith("internal error"));
  }
}
