package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.testkit.Tool;
import org.jverity.testkit.ToolResult;
import org.jverity.verify.ReaderOptions;

/**
 * Over TCP: well-behaved clients (a raw pipelined Java client, and nbdcopy when installed) read the
 * whole image correctly while fuzzed connections (FuzzCase streams; some read their replies, some
 * reset the connection with requests in flight) hammer the same server.
 */
class NbdTcpFuzzTest {
  private static final int BLOCKS = 1024; // 4 MiB
  private static final int FUZZERS = 4;

  @TempDir Path dir;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void wellBehavedClientsAreServedWhileFuzzedConnectionsRun() throws Exception {
    byte[] bytes = NbdFuzzTest.imageBytes(BLOCKS);
    Path data = Files.write(dir.resolve("data.img"), bytes);
    Queue<String> internal = new ConcurrentLinkedQueue<>();
    NbdEvents events =
        new NbdEvents() {
          @Override
          public void disconnected(String peer, String reason) {
            if (reason.startsWith("internal error")) {
              internal.add(peer + ": " + reason);
            }
          }
        };
    try (ServedImage im =
        ServedImage.format(
            dir,
            data,
            ReaderOptions.DEFAULTS.withIgnoreZeroBlocks(true),
            ServerLimits.DEFAULTS,
            events)) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger cases = new AtomicInteger();
      Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
      List<Thread> fuzzers = new ArrayList<>();
      for (int f = 0; f < FUZZERS; f++) {
        int first = f;
        fuzzers.add(
            Thread.ofVirtual()
                .name("fuzzer-" + f)
                .start(
                    () -> {
                      for (long seed = first; !stop.get(); seed += FUZZERS) {
                        FuzzCase c = FuzzCase.generate(seed, bytes.length, true);
                        try {
                          fuzzOnce(im, c, bytes, seed % 3 == 0);
                          cases.incrementAndGet();
                        } catch (Throwable e) {
                          failures.add(new AssertionError(c + ": " + e, e));
                          return;
                        }
                      }
                    }));
      }
      Thread.sleep(200); // the fuzzers are running
      for (int round = 0; round < 3; round++) {
        readWholeImage(im, bytes, round);
      }
      // a real client reads it whole while the fuzzers run; missing, it fails naming its package
      ToolResult copy = Tool.of("nbdcopy").timeout(Duration.ofSeconds(30)).run(im.tcpUri(), "-");
      assertThat(copy.exit()).as("nbdcopy exit status").isZero();
      assertThat(copy.stdout()).as("nbdcopy's copy is the image").isEqualTo(bytes);
      stop.set(true);
      for (Thread t : fuzzers) {
        assertThat(t.join(java.time.Duration.ofSeconds(10))).as("fuzzer ended").isTrue();
      }
      assertThat(failures).isEmpty();
      assertThat(cases.get()).as("fuzzed connections").isGreaterThan(20);
      readWholeImage(im, bytes, 99); // still serving
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (im.server.connections() > 0 && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      assertThat(im.server.connections()).as("connections left open").isZero();
      assertThat(internal).isEmpty();
    }
  }

  /**
   * Sends one fuzzed stream; reads every reply and checks them, or resets with requests in flight.
   */
  private static void fuzzOnce(ServedImage im, FuzzCase c, byte[] image, boolean reset)
      throws IOException {
    try (Socket s = new Socket(im.address.getAddress(), im.address.getPort())) {
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      try {
        out.write(c.bytes);
        out.flush();
      } catch (IOException serverClosedFirst) {
        return; // it hung up on a protocol error before we finished: allowed
      }
      if (reset) {
        s.setSoLinger(true, 0); // RST: the client vanishes with its requests in flight
        return;
      }
      s.shutdownOutput();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      InputStream in = s.getInputStream();
      try {
        in.transferTo(got);
      } catch (java.net.SocketTimeoutException e) {
        throw new AssertionError("no EOF from the server 5 s after the client's stream ended", e);
      } catch (IOException resetByServer) {
        return; // a hard disconnect with our bytes unread resets the socket: the tail may be lost
      }
      ServerOutput.parse(got.toByteArray(), image, ServerOutput.Requests.scan(c.bytes));
    }
  }

  /** A pipelined structured-reply client reading the whole image in 16 KiB requests, shuffled. */
  private static void readWholeImage(ServedImage im, byte[] image, int round) throws Exception {
    int chunk = 16 << 10;
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < image.length / chunk; i++) {
      order.add(i);
    }
    Collections.shuffle(order, new java.util.Random(round));
    ClientStream s =
        new ClientStream()
            .clientFlags(Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES)
            .structuredReply()
            .metaContext(NbdOption.SET_META_CONTEXT.wire, "", Nbd.BASE_ALLOCATION)
            .go("");
    ServerOutput.Requests sent = new ServerOutput.Requests();
    for (int i : order) {
      s.read(1000 + i, (long) i * chunk, chunk);
      sent.add(
          new ServerOutput.Request(0, NbdCommand.READ.wire, 1000 + i, (long) i * chunk, chunk));
    }
    s.disc();
    byte[] stream = s.bytes();
    try (Socket sock = new Socket(im.address.getAddress(), im.address.getPort())) {
      sock.setSoTimeout(10_000);
      Thread writer =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      sock.getOutputStream().write(stream);
                      sock.getOutputStream().flush();
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  });
      byte[] got = sock.getInputStream().readAllBytes();
      writer.join();
      ServerOutput o = ServerOutput.parse(got, image, sent);
      for (int i : order) {
        List<ServerOutput.Reply> rs = o.repliesTo(1000 + i);
        assertThat(rs).as("round %d read %d", round, i).isNotEmpty();
        assertThat(rs.getLast().done()).isTrue();
        long next = (long) i * chunk;
        for (ServerOutput.Reply d :
            rs.stream()
                .filter(r -> r.type() == Nbd.REPLY_TYPE_OFFSET_DATA)
                .sorted(Comparator.comparingLong(ServerOutput.Reply::offset))
                .toList()) {
          assertThat(d.offset()).isEqualTo(next);
          next += d.data().length;
        }
        assertThat(next)
            .as("round %d read %d: bytes covered", round, i)
            .isEqualTo((long) (i + 1) * chunk);
      }
    }
  }
}
