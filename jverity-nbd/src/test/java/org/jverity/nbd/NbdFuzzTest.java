package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.lifecycle.BeforeTry;
import net.jqwik.api.statistics.Statistics;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.verify.ReaderOptions;

/**
 * Mutated client streams (FuzzCase) replayed through {@link NbdServer#serve}: each must end within
 * 2 s of its input ending, with nothing escaping and no internal error, and with output that parses
 * as replies whose data are exactly the image's bytes. Unmutated random request sequences must get
 * exactly the right reply for every request.
 */
class NbdFuzzTest {
  private static final int TRIES = 500;
  static final Duration PROMPTLY = Duration.ofSeconds(2);
  private static final int BLOCKS = 256; // 1 MiB; every 16th block is zero

  private static Path dir;
  private static ServedImage image;
  private static byte[] bytes;
  private static final Queue<String> disconnects = new ConcurrentLinkedQueue<>();

  @BeforeContainer
  static void serve() throws IOException {
    dir = Files.createTempDirectory("nbd-fuzz");
    bytes = imageBytes(BLOCKS);
    Path data = Files.write(dir.resolve("data.img"), bytes);
    NbdEvents events =
        new NbdEvents() {
          @Override
          public void disconnected(String peer, String reason) {
            disconnects.add(reason);
          }
        };
    image =
        ServedImage.format(
            dir,
            data,
            ReaderOptions.DEFAULTS.withIgnoreZeroBlocks(true),
            ServerLimits.DEFAULTS,
            events);
  }

  @AfterContainer
  static void stop() throws IOException {
    image.close();
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @BeforeTry
  void clearEvents() {
    disconnects.clear();
  }

  /** Pseudo-random 4 KiB blocks, every 16th all zero (ServedImage.random's pattern). */
  static byte[] imageBytes(int blocks) {
    byte[] b = new byte[blocks * 4096];
    SplittableRandom rnd = new SplittableRandom(blocks);
    for (int i = 0; i < blocks; i++) {
      if (i % 16 != 5) {
        byte[] block = new byte[4096];
        rnd.nextBytes(block);
        System.arraycopy(block, 0, b, i * 4096, 4096);
      }
    }
    return b;
  }

  @Property(tries = TRIES)
  void mutatedStreamsEndPromptlyInWellFormedReplies(@ForAll long seed) throws Exception {
    FuzzCase c = FuzzCase.generate(seed, bytes.length, true);
    byte[] out = replay(c);
    ServerOutput o;
    try {
      o = ServerOutput.parse(out, bytes, ServerOutput.Requests.scan(c.bytes));
    } catch (AssertionError e) {
      throw new AssertionError(c + ": " + e.getMessage(), e);
    }
    Statistics.label("transmission").collect(o.transmission);
    Statistics.label("read data replies")
        .collect(Math.min(3, o.replies.stream().filter(r -> r.offset() >= 0).count()));
    Statistics.label("replies").collect(Math.min(3, o.replies.size()));
    assertThat(disconnects).as("%s", c).noneMatch(r -> r.startsWith("internal error"));
  }

  @Property(tries = 150)
  void wellFormedRequestsGetExactlyTheRightReplies(@ForAll long seed) throws Exception {
    FuzzCase c = FuzzCase.generate(seed, bytes.length, false);
    byte[] out = replay(c);
    ServerOutput.Requests sent = new ServerOutput.Requests();
    for (FuzzCase.Req r : c.requests) {
      sent.add(
          new ServerOutput.Request(
              0,
              r.kind() == FuzzCase.Kind.READ || r.kind() == FuzzCase.Kind.READ_DF
                  ? NbdCommand.READ.wire
                  : NbdCommand.FLUSH.wire,
              r.cookie(),
              r.offset(),
              r.length()));
    }
    ServerOutput o;
    try {
      o = ServerOutput.parse(out, bytes, sent);
    } catch (AssertionError e) {
      throw new AssertionError(c + ": " + e.getMessage(), e);
    }
    assertThat(o.transmission).as("%s", c).isTrue();
    boolean structured =
        c.handshake == FuzzCase.Handshake.STRUCTURED_GO
            || c.handshake == FuzzCase.Handshake.STRUCTURED_META_GO;
    assertThat(o.structured).as("%s", c).isEqualTo(structured);
    boolean meta = c.handshake == FuzzCase.Handshake.STRUCTURED_META_GO;
    for (FuzzCase.Req r : c.requests) {
      checkReply(c, r, o.repliesTo(r.cookie()), structured, meta);
    }
    assertThat(disconnects)
        .as("%s", c)
        .containsExactly(c.disc ? "client disconnected" : "client closed the connection");
  }

  static byte[] replay(FuzzCase c) throws InterruptedException {
    try {
      return StreamReplay.replay(image.server, c.bytes, PROMPTLY);
    } catch (AssertionError e) {
      throw new AssertionError(c + ": " + e.getMessage(), e);
    }
  }

  /** The error a well-formed request must get, or null for success. */
  static NbdError expectedError(FuzzCase.Req r, boolean structured, boolean meta, long size) {
    return switch (r.kind()) {
      case WRITE, TRIM, WRITE_ZEROES -> NbdError.EPERM;
      case UNKNOWN -> NbdError.EINVAL;
      case FLUSH -> null;
      default -> {
        if (r.kind() == FuzzCase.Kind.READ_DF && !structured) {
          yield NbdError.EINVAL;
        }
        if (r.length() == 0 || r.offset() < 0 || r.offset() > size - r.length()) {
          yield NbdError.EINVAL;
        }
        if ((r.kind() == FuzzCase.Kind.BLOCK_STATUS || r.kind() == FuzzCase.Kind.BLOCK_STATUS_ONE)
            && !meta) {
          yield NbdError.EINVAL;
        }
        yield null;
      }
    };
  }

  private static void checkReply(
      FuzzCase c,
      FuzzCase.Req r,
      List<ServerOutput.Reply> replies,
      boolean structured,
      boolean meta) {
    String what = c + ": " + r;
    assertThat(replies).as(what).isNotEmpty();
    assertThat(replies.getLast().done()).as(what + ": last reply is DONE").isTrue();
    assertThat(replies.subList(0, replies.size() - 1))
        .as(what + ": only the last reply is DONE")
        .noneMatch(ServerOutput.Reply::done);
    NbdError error = expectedError(r, structured, meta, bytes.length);
    if (error != null) {
      assertThat(replies).as(what).hasSize(1);
      ServerOutput.Reply e = replies.getFirst();
      assertThat(e.error()).as(what).isEqualTo(error.wire);
      assertThat(e.simple() || e.type() == Nbd.REPLY_TYPE_ERROR).as(what).isTrue();
      return;
    }
    assertThat(replies).as(what + ": no error").allMatch(x -> x.error() == 0);
    switch (r.kind()) {
      case READ, READ_DF -> {
        if (!structured) {
          assertThat(replies).as(what).hasSize(1);
          assertThat(replies.getFirst().offset()).as(what).isEqualTo(r.offset());
          assertThat(replies.getFirst().data().length).as(what).isEqualTo((int) r.length());
          return; // the parser compared the bytes with the image
        }
        // Chunks may come in any order; together they cover the range exactly once.
        long covered = 0;
        List<ServerOutput.Reply> data =
            replies.stream()
                .filter(x -> x.type() == Nbd.REPLY_TYPE_OFFSET_DATA)
                .sorted(Comparator.comparingLong(ServerOutput.Reply::offset))
                .toList();
        long next = r.offset();
        for (ServerOutput.Reply d : data) {
          assertThat(d.offset()).as(what + ": chunks contiguous, no overlap").isEqualTo(next);
          next += d.data().length;
          covered += d.data().length;
        }
        assertThat(covered).as(what + ": bytes sent").isEqualTo(r.length());
        assertThat(replies)
            .as(what)
            .allMatch(
                x -> x.type() == Nbd.REPLY_TYPE_OFFSET_DATA || x.type() == Nbd.REPLY_TYPE_NONE);
        if (r.kind() == FuzzCase.Kind.READ_DF) {
          assertThat(data).as(what + ": DF: one chunk").hasSize(1);
        }
      }
      case CACHE, FLUSH -> {
        assertThat(replies).as(what).hasSize(1);
        assertThat(replies.getFirst().simple() || replies.getFirst().type() == Nbd.REPLY_TYPE_NONE)
            .as(what)
            .isTrue();
      }
      case BLOCK_STATUS, BLOCK_STATUS_ONE -> {
        assertThat(replies).as(what).hasSize(1);
        ServerOutput.Reply s = replies.getFirst();
        assertThat(s.type()).as(what).isEqualTo(Nbd.REPLY_TYPE_BLOCK_STATUS);
        ByteBuffer p = ByteBuffer.wrap(s.data());
        assertThat(p.getInt()).as(what + ": context id").isEqualTo(Nbd.BASE_ALLOCATION_ID);
        int n = p.remaining() / 8;
        if (r.kind() == FuzzCase.Kind.BLOCK_STATUS_ONE) {
          assertThat(n).as(what + ": REQ_ONE").isEqualTo(1);
        }
        long pos = r.offset();
        for (int i = 0; i < n; i++) {
          long len = Integer.toUnsignedLong(p.getInt());
          int state = p.getInt();
          assertThat(len).as(what + ": extent length").isPositive();
          assertThat(state).as(what + ": state").isIn(0, Nbd.STATE_HOLE | Nbd.STATE_ZERO);
          if (i < n - 1 || r.kind() == FuzzCase.Kind.BLOCK_STATUS_ONE) {
            assertThat(pos + len)
                .as(what + ": extents before the last end inside the request")
                .isLessThanOrEqualTo(r.offset() + r.length());
          }
          if (state != 0) {
            int from = (int) pos;
            int to = (int) Math.min(bytes.length, pos + len);
            assertThat(Arrays.equals(bytes, from, to, new byte[to - from], 0, to - from))
                .as(what + ": a ZERO extent [" + from + ", " + to + ") reads as zeros")
                .isTrue();
          }
          pos += len;
        }
      }
      default -> throw new AssertionError(what + ": unexpected success");
    }
  }
}
