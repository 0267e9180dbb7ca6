package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.testkit.Tool;
import org.jverity.verify.ReaderOptions;

/**
 * Clients that misbehave, over raw sockets ({@link RawNbdClient}): one that vanishes with reads in
 * flight, a thousand that connect and say nothing, a WRITE of 1 GiB, a bad request magic. Each time
 * the misbehaving connection alone is affected: others (a raw client connected before, and a fresh
 * {@code nbdinfo}) are served, and {@link NbdServer#connections()} goes back to 0.
 */
class RobustnessTest {
  private static final Duration SOON = Duration.ofSeconds(10);
  private static final int BLOCKS = 4096; // 16 MiB

  @TempDir static Path dir;
  private static ServedImage image;
  private static byte[] bytes;
  private static final Recorder events = new Recorder();

  /** What the server reported, for asserting why a connection ended. */
  static final class Recorder implements NbdEvents {
    final Queue<String> protocolErrors = new ConcurrentLinkedQueue<>();
    final Queue<String> disconnects = new ConcurrentLinkedQueue<>();

    @Override
    public void protocolError(String peer, String message) {
      protocolErrors.add(message);
    }

    @Override
    public void disconnected(String peer, String reason) {
      disconnects.add(reason);
    }
  }

  @BeforeAll
  static void serve() throws IOException {
    image = ServedImage.random(dir, BLOCKS, ReaderOptions.DEFAULTS, events);
    bytes = Files.readAllBytes(image.data);
  }

  @AfterAll
  static void stop() throws IOException {
    if (image != null) {
      image.close();
    }
  }

  @AfterEach
  void everyConnectionEnds() {
    await("connections() back to 0", () -> image.server.connections() == 0);
    events.protocolErrors.clear();
    events.disconnects.clear();
  }

  private static RawNbdClient connect(boolean structured) throws IOException {
    return RawNbdClient.connect(image.address, structured);
  }

  /** Another client is served: nbdinfo in a process of its own reports the size. */
  private static void nbdinfoStillWorks() {
    var r = Tool.of("nbdinfo").timeout(Duration.ofSeconds(20)).run("--size", image.tcpUri()).ok();
    assertThat(r.out().strip()).isEqualTo(String.valueOf(bytes.length));
  }

  private static void assertReads(RawNbdClient c, long offset, int length) throws IOException {
    assertThat(
            Arrays.equals(
                c.read(offset, length), 0, length, bytes, (int) offset, (int) offset + length))
        .as("%d bytes at %d are the image's", length, offset)
        .isTrue();
  }

  private static void await(String what, BooleanSupplier condition) {
    long until = System.nanoTime() + SOON.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime())
          .as("%s within %s (connections: %d)", what, SOON, image.server.connections())
          .isLessThan(until);
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  @ParameterizedTest(name = "structured replies: {0}, reset: {1}")
  @CsvSource({"false, false", "false, true", "true, false", "true, true"})
  @DisplayName(
      "a client that vanishes with eight 2 MiB reads in flight: others are served, its connection ends")
  void clientVanishesWithReadsInFlight(boolean structured, boolean reset) throws IOException {
    try (RawNbdClient other = connect(false)) {
      RawNbdClient vanishing = connect(structured);
      for (int i = 0; i < 8; i++) {
        vanishing.request(RawNbdClient.READ, i, (long) i << 21, 2 << 20);
      }
      vanishing.abort(reset);

      nbdinfoStillWorks();
      assertReads(other, 12345, 100_000);
      await("the vanished client's connection ends", () -> image.server.connections() == 1);
    }
  }

  /**
   * The same, 300 times over with every kind of reply and close: a reply that fails closes the
   * socket, and the reading thread, asking whether more requests were queued, then met a closed
   * socket with an in-flight permit taken, which the connection's end waited for for ever (it hung
   * once in tens of rounds).
   */
  @Test
  @DisplayName(
      "300 clients vanishing one after another with reads in flight: every connection ends")
  void manyClientsVanishingWithReadsInFlight() throws IOException {
    try (RawNbdClient other = connect(false)) {
      for (int round = 0; round < 300; round++) {
        RawNbdClient vanishing = connect(round % 2 == 0);
        for (int i = 0; i < 8; i++) {
          vanishing.request(RawNbdClient.READ, i, (long) i << 21, 2 << 20);
        }
        vanishing.abort(round % 4 >= 2);
        assertReads(other, 12345, 100_000);
        int r = round;
        await(
            "round " + r + ": the vanished client's connection ends",
            () -> image.server.connections() == 1);
      }
    }
  }

  @Test
  @DisplayName(
      "1,000 idle connections are all held, a new client is served, and all of them end when closed")
  void thousandIdleConnections() throws IOException {
    List<RawNbdClient> idle = new ArrayList<>();
    try {
      for (int i = 0; i < 1000; i++) {
        idle.add(connect(i % 2 == 0));
      }
      assertThat(image.server.connections()).isEqualTo(1000);

      nbdinfoStillWorks();
      try (RawNbdClient fresh = connect(false)) {
        assertReads(fresh, 4096 * 7, 4096);
      }
      assertReads(idle.get(1), 0, 65536); // the oldest odd one (simple replies) still answers
      await(
          "nbdinfo's and the fresh client's connections end",
          () -> image.server.connections() == 1000);
    } finally {
      for (RawNbdClient c : idle) {
        c.close();
      }
    }
    await("1,000 closed connections end", () -> image.server.connections() == 0);
    assertThat(events.protocolErrors).isEmpty();
  }

  @Test
  @DisplayName(
      "a WRITE of 1 GiB is refused at its header: that connection closes without draining it, others go on")
  void hugeWriteClosesOnlyItsConnection() throws IOException {
    try (RawNbdClient other = connect(true);
        RawNbdClient writer = connect(false)) {
      writer.request(RawNbdClient.WRITE, 1, 0, 1 << 30);
      boolean closed;
      try {
        writer.send(new byte[4 << 20]); // the start of a payload that will never be complete
        closed = writer.closedByServer(Duration.ofSeconds(5));
      } catch (SocketException e) {
        closed = true; // "Broken pipe": the server closed before taking 4 MiB of it
      }

      assertThat(closed).as("the server closes the connection").isTrue();
      await("the writer's connection ends", () -> image.server.connections() == 1);
      assertThat(events.protocolErrors)
          .anySatisfy(m -> assertThat(m).contains("write of 1073741824 bytes"));
      nbdinfoStillWorks();
    }
  }

  @Test
  @DisplayName(
      "a WRITE under the drain limit gets EPERM after its payload, and the connection goes on")
  void smallWriteGetsEpermAndTheConnectionGoesOn() throws IOException {
    try (RawNbdClient c = connect(false)) {
      for (int length : new int[] {1, 4096, 1 << 20}) {
        c.request(RawNbdClient.WRITE, length, 0, length);
        c.send(new byte[length]);
        assertThat(c.readSimple()).isEqualTo(new RawNbdClient.Simple(NbdError.EPERM.wire, length));
      }
      assertReads(c, 0, 8192);
    }
  }

  @Test
  @DisplayName("a bad request magic closes only that connection")
  void badMagicClosesOnlyThatConnection() throws IOException {
    try (RawNbdClient other = connect(false);
        RawNbdClient bad = connect(false)) {
      assertReads(bad, 0, 4096);
      bad.request(0xdeadbeef, 0, RawNbdClient.READ, 2, 0, 4096);

      assertThat(bad.closedByServer(Duration.ofSeconds(5)))
          .as("the server closes the connection")
          .isTrue();
      await("the bad connection ends", () -> image.server.connections() == 1);
      assertThat(events.protocolErrors)
          .anySatisfy(m -> assertThat(m).contains("request magic 0xdeadbeef"));
      assertReads(other, bytes.length - 4096, 4096);
      nbdinfoStillWorks();
    }
  }

  /**
   * Read buffers belong to requests, not to connections: 400 clients that each read once and then
   * stay connected hold no read budget, so a new client's read is served at once (a buffer kept per
   * connection would exhaust the 32 MiB budget after ~31 such clients and stall the rest).
   */
  @Test
  void idleClientsThatHaveReadHoldNoReadBudget() throws Exception {
    List<RawNbdClient> idle = new ArrayList<>();
    try {
      for (int i = 0; i < 400; i++) {
        RawNbdClient c = RawNbdClient.connect(image.address, false);
        idle.add(c);
        long at = (long) (i % BLOCKS) * 4096;
        assertThat(c.read(at, 4096))
            .isEqualTo(Arrays.copyOfRange(bytes, (int) at, (int) at + 4096));
      }
      try (RawNbdClient late = RawNbdClient.connect(image.address, false)) {
        assertThat(late.read(0, 1 << 20)).isEqualTo(Arrays.copyOf(bytes, 1 << 20));
      }
    } finally {
      for (RawNbdClient c : idle) {
        c.close();
      }
    }
  }
}
