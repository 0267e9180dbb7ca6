package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.jverity.verify.SourceStats;
import org.jverity.verify.VerifiedSource;

/**
 * A drain (shutdown, withdraw, reload) as the spec's soft disconnect: every request the server read
 * before it is answered with its data, every later one with NBD_ESHUTDOWN (108, NBD.md 1.6) for as
 * long as the client goes on sending, and only then does the connection close: no client meets EOF
 * with a request unanswered. Bounded all the same: a client that never reads or never disconnects
 * does not hold the drain past its grace.
 */
class DrainTest {
  private static final int ESHUTDOWN = 108;
  private static final int BLOCK = 4096;

  /** Reads that wait at a gate, so requests are in flight when the drain begins. */
  private static final class GatedSource implements VerifiedSource {
    private final MemorySource memory;
    private final CountDownLatch gate = new CountDownLatch(1);
    private final Semaphore entered = new Semaphore(0);

    GatedSource(byte[] bytes) {
      this.memory = new MemorySource(bytes, BLOCK, Set.of());
    }

    @Override
    public long size() {
      return memory.size();
    }

    @Override
    public int blockSize() {
      return BLOCK;
    }

    @Override
    public void read(long offset, byte[] dst, int dstOffset, int length) throws IOException {
      entered.release();
      try {
        if (!gate.await(20, TimeUnit.SECONDS)) {
          throw new IOException("gate never opened");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
      memory.read(offset, dst, dstOffset, length);
    }

    @Override
    public SourceStats stats() {
      return memory.stats();
    }

    void awaitEntered(int reads) throws InterruptedException {
      assertThat(entered.tryAcquire(reads, 10, TimeUnit.SECONDS))
          .as("%d reads in flight", reads)
          .isTrue();
    }
  }

  /** A reply: its cookie, its error (0: none) and, for a READ without one, its data. */
  private record Reply(long cookie, int error, byte[] data) {}

  /** Reads {@code n} simple replies of READs whose lengths {@code pending} holds by cookie. */
  private static Map<Long, Reply> replies(RawNbdClient c, Map<Long, Integer> pending, int n)
      throws IOException {
    Map<Long, Reply> got = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      RawNbdClient.Simple s = c.readSimple();
      assertThat(pending).as("a reply to a request sent").containsKey(s.cookie());
      int length = pending.remove(s.cookie());
      byte[] data = new byte[s.error() == 0 ? length : 0];
      c.readFully(data);
      got.put(s.cookie(), new Reply(s.cookie(), s.error(), data));
    }
    return got;
  }

  /** Sends READs of one block each, cookies {@code from} to {@code to}, in one write. */
  private static void pipeline(RawNbdClient c, Map<Long, Integer> pending, long from, long to)
      throws IOException {
    for (long cookie = from; cookie <= to; cookie++) {
      c.queue(RawNbdClient.READ, cookie, (cookie % 8) * BLOCK, BLOCK);
      pending.put(cookie, BLOCK);
    }
    c.flush();
  }

  private static byte[] block(byte[] data, long cookie) {
    int at = (int) (cookie % 8) * BLOCK;
    return Arrays.copyOfRange(data, at, at + BLOCK);
  }

  /**
   * Four pipelined reads in flight when the drain begins, four more sent after: the first four get
   * their data, the rest ESHUTDOWN, and so does a request sent once every earlier one has been
   * answered (the server used to close right then); the client's DISC ends the drain at once.
   */
  private static void drainAnswersEveryRequest(
      String what, Consumer<NbdServer> drain, boolean othersGoOn) throws Exception {
    byte[] data = new byte[8 * BLOCK];
    new SplittableRandom(5).nextBytes(data);
    GatedSource gated = new GatedSource(data);
    NbdServer server =
        new NbdServer(
            List.of(
                Export.of("gated", gated),
                Export.of("other", new MemorySource(new byte[BLOCK], BLOCK, Set.of()))),
            ServerLimits.DEFAULTS,
            null,
            NbdEvents.NONE);
    Thread draining = null;
    try {
      InetSocketAddress at = server.listen(new InetSocketAddress("127.0.0.1", 0));
      try (RawNbdClient c = RawNbdClient.connect(at, false)) {
        Map<Long, Integer> pending = new LinkedHashMap<>();
        pipeline(c, pending, 1, 4);
        gated.awaitEntered(4);
        draining = Thread.ofVirtual().start(() -> drain.accept(server));
        Thread.sleep(100); // the drain has begun: the reads sent now are read after it (the reading
        pipeline(c, pending, 5, 8); // thread waits in read 4, served inline, until the gate opens)
        Thread.sleep(100);
        gated.gate.countDown();

        Map<Long, Reply> got = replies(c, pending, 8);
        for (long cookie = 1; cookie <= 4; cookie++) {
          assertThat(got.get(cookie).error()).as("%s: read %d, in flight", what, cookie).isZero();
          assertThat(got.get(cookie).data()).isEqualTo(block(data, cookie));
        }
        for (long cookie = 5; cookie <= 8; cookie++) {
          assertThat(got.get(cookie).error())
              .as("%s: read %d, after the drain began", what, cookie)
              .isEqualTo(ESHUTDOWN);
        }
        assertThat(pending).as("%s: every request answered", what).isEmpty();

        pipeline(c, pending, 9, 9); // the client had not seen its ESHUTDOWN yet
        assertThat(replies(c, pending, 1).get(9L).error())
            .as("%s: a request after every earlier one was answered", what)
            .isEqualTo(ESHUTDOWN);

        long t0 = System.nanoTime();
        c.request(RawNbdClient.DISC, 10, 0, 0);
        assertThat(c.closedByServer(Duration.ofSeconds(5))).isTrue();
        draining.join(Duration.ofSeconds(5));
        assertThat(draining.isAlive()).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - t0))
            .as("%s: ends at the client's DISC, not after the quiet time", what)
            .isLessThan(Connection.QUIET);
      }
      if (othersGoOn) {
        assertThat(server.isShuttingDown()).isFalse();
        try (RawNbdClient c = RawNbdClient.connect(at, false)) {
          assertThat(c.read(0, BLOCK)).isEqualTo(new byte[BLOCK]); // "" is "other" now
        }
      }
    } finally {
      gated.gate.countDown();
      server.shutdown(Duration.ofSeconds(5));
      if (draining != null) {
        draining.join(Duration.ofSeconds(10));
      }
    }
  }

  @Test
  void aShutdownAnswersEveryRequestReadBeforeItAndRefusesLaterOnes() throws Exception {
    drainAnswersEveryRequest("shutdown", s -> s.shutdown(Duration.ofSeconds(20)), false);
  }

  @Test
  void aWithdrawAnswersEveryRequestReadBeforeItAndRefusesLaterOnes() throws Exception {
    drainAnswersEveryRequest("withdraw", s -> s.withdraw("gated", Duration.ofSeconds(20)), true);
  }

  @Test
  void aReloadAnswersEveryRequestReadBeforeItAndRefusesLaterOnes() throws Exception {
    drainAnswersEveryRequest(
        "reload", // a config without "gated"
        s -> s.replaceExports(List.of(s.exports().get("other")), Duration.ofSeconds(20)),
        true);
  }

  /** A client that sends nothing more is closed once quiet, long before the grace. */
  @Test
  void anIdleClientIsClosedOnceQuietNotAtTheGrace() throws Exception {
    NbdServer server =
        new NbdServer(
            List.of(Export.of("a", new MemorySource(new byte[BLOCK], BLOCK, Set.of()))),
            ServerLimits.DEFAULTS,
            null,
            NbdEvents.NONE);
    try {
      InetSocketAddress at = server.listen(new InetSocketAddress("127.0.0.1", 0));
      try (RawNbdClient c = RawNbdClient.connect(at, false)) {
        assertThat(c.read(0, BLOCK)).isEqualTo(new byte[BLOCK]);
        long t0 = System.nanoTime();
        server.shutdown(Duration.ofSeconds(20));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertThat(took).isGreaterThanOrEqualTo(Connection.QUIET).isLessThan(Duration.ofSeconds(5));
        assertThat(c.closedByServer(Duration.ofSeconds(1))).isTrue();
      }
    } finally {
      server.shutdown(Duration.ofSeconds(5));
    }
  }

  /**
   * A client that sends requests and never reads its replies: the drain still ends at its grace
   * (the replies it cannot write are dropped with the connection).
   */
  @Test
  void aClientThatNeverReadsDoesNotHoldTheDrainPastItsGrace() throws Exception {
    byte[] data = new byte[8 << 20];
    NbdServer server =
        new NbdServer(
            List.of(Export.of("a", new MemorySource(data, BLOCK, Set.of()))),
            ServerLimits.DEFAULTS,
            null,
            NbdEvents.NONE);
    try {
      InetSocketAddress at = server.listen(new InetSocketAddress("127.0.0.1", 0));
      try (RawNbdClient c = RawNbdClient.connect(at, false)) {
        for (long cookie = 1; cookie <= 32; cookie++) { // 256 MiB of replies, none read
          c.queue(RawNbdClient.READ, cookie, 0, data.length);
        }
        c.flush();
        Thread.sleep(200);
        long t0 = System.nanoTime();
        server.shutdown(Duration.ofSeconds(2));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        assertThat(server.connections()).isZero();
      }
    } finally {
      server.shutdown(Duration.ofSeconds(5));
    }
  }
}
