package org.jverity.nbd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jverity.verify.ReaderOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * nbdkit's fuzzing seeds (reconstructed: src/test/resources/nbd-corpus/README.md) replayed through
 * {@link NbdServer#serve} as {@code nbdkit -s} reads them: each must end promptly in a
 * well-formed reply sequence with the image's bytes for reads and EPERM for the write.
 */
class NbdCorpusReplayTest {
  private static final Duration PROMPTLY = Duration.ofSeconds(2);
  private static final int READ4_LENGTH = 512;
  /** (cookie, offset) of the four reads of the *-read4 seeds. */
  private static final long[][] READ4 = {{1, 0}, {2, 512}, {3, 4096}, {4, (1 << 20) - 512}};

  @TempDir static Path dir;
  private static ServedImage image;
  private static byte[] bytes;

  @BeforeAll
  static void serve() throws IOException {
    image = ServedImage.random(dir, 256, ReaderOptions.DEFAULTS); // 1 MiB, as nbdkit's memory 1M
    bytes = Files.readAllBytes(image.data);
  }

  @AfterAll
  static void stop() throws IOException {
    image.close();
  }

  /** The seeds, built from the protocol layout. */
  static Map<String, byte[]> seeds() {
    ClientStream read4 = new ClientStream();
    for (long[] r : READ4) {
      read4.read(r[0], r[1], READ4_LENGTH);
    }
    byte[] payload = new byte[512];
    for (int i = 0; i < payload.length; i++) {
      payload[i] = (byte) i;
    }
    return Map.of(
        "newstyle-cflags", cflags().bytes(),
        "newstyle-cflags-exportname", cflags().exportName("").bytes(),
        "newstyle-cflags-exportname-read4", cflags().exportName("").raw(read4.bytes()).bytes(),
        "newstyle-cflags-go", cflags().go("").bytes(),
        "newstyle-cflags-go-read", cflags().go("").read(0, 0, 512).bytes(),
        "newstyle-cflags-go-read4", cflags().go("").raw(read4.bytes()).bytes(),
        "newstyle-cflags-go-write", cflags().go("").write(0, 0, payload).bytes());
  }

  private static ClientStream cflags() {
    return new ClientStream().clientFlags(Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES);
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = NbdCorpusReplayTest.class.getResourceAsStream("/nbd-corpus/" + name)) {
      assertTrue(in != null, "resource nbd-corpus/" + name);
      return in.readAllBytes();
    }
  }

  private static ServerOutput replay(String name) throws Exception {
    byte[] input = resource(name);
    byte[] out = StreamReplay.replay(image.server, input, PROMPTLY);
    return ServerOutput.parse(out, bytes, ServerOutput.Requests.scan(input));
  }

  @Test
  void resourceFilesAreTheDocumentedLayout() throws IOException {
    for (Map.Entry<String, byte[]> e : seeds().entrySet()) {
      assertArrayEquals(e.getValue(), resource(e.getKey()), e.getKey());
    }
    assertEquals(54, seeds().get("newstyle-cflags-go-read").length, "NBD.md §2.1: newstyle-cflags-go-read is 54 bytes");
  }

  @Test
  void clientFlagsThenEofGetsTheGreetingOnly() throws Exception {
    ServerOutput o = replay("newstyle-cflags");
    assertTrue(o.options.isEmpty());
    assertFalse(o.transmission);
  }

  @Test
  void exportNameGetsSizeAndFlagsWithoutZeroes() throws Exception {
    ServerOutput o = replay("newstyle-cflags-exportname");
    assertEquals(bytes.length, o.exportNameSize);
    assertTrue(o.replies.isEmpty());
  }

  @Test
  void exportNameThenFourReadsGetTheImagesBytes() throws Exception {
    ServerOutput o = replay("newstyle-cflags-exportname-read4");
    assertEquals(bytes.length, o.exportNameSize);
    assertFourReads(o);
  }

  @Test
  void goGetsExportInfoThenAck() throws Exception {
    ServerOutput o = replay("newstyle-cflags-go");
    assertGo(o);
    assertTrue(o.replies.isEmpty());
  }

  @Test
  void goThenReadGetsTheFirstSector() throws Exception {
    ServerOutput o = replay("newstyle-cflags-go-read");
    assertGo(o);
    assertEquals(1, o.replies.size());
    ServerOutput.Reply r = o.replies.getFirst();
    assertEquals(0, r.cookie());
    assertEquals(0, r.error());
    assertEquals(0, r.offset());
    assertArrayEquals(java.util.Arrays.copyOf(bytes, 512), r.data());
  }

  @Test
  void goThenFourReadsGetTheImagesBytes() throws Exception {
    ServerOutput o = replay("newstyle-cflags-go-read4");
    assertGo(o);
    assertFourReads(o);
  }

  @Test
  void goThenWriteGetsEperm() throws Exception {
    ServerOutput o = replay("newstyle-cflags-go-write");
    assertGo(o);
    assertEquals(1, o.replies.size());
    ServerOutput.Reply r = o.replies.getFirst();
    assertTrue(r.simple());
    assertEquals(0, r.cookie());
    assertEquals(NbdError.EPERM.wire, r.error());
  }

  private static void assertGo(ServerOutput o) {
    assertTrue(o.transmission);
    List<ServerOutput.OptionReply> go = o.options;
    assertTrue(go.stream().allMatch(r -> r.option() == Nbd.OPT_GO), "replies to GO only");
    assertEquals(Nbd.REP_ACK, go.getLast().type());
    ServerOutput.OptionReply info = go.getFirst();
    assertEquals(Nbd.REP_INFO, info.type());
    ByteBuffer b = ByteBuffer.wrap(info.data());
    assertEquals(Nbd.INFO_EXPORT, b.getShort());
    assertEquals(bytes.length, b.getLong());
    assertEquals(Nbd.TF_HAS_FLAGS | Nbd.TF_READ_ONLY | Nbd.TF_SEND_FLUSH | Nbd.TF_CAN_MULTI_CONN
        | Nbd.TF_SEND_CACHE, b.getShort(), "nbdkit -r's 0x0507 (no DF: no structured replies)");
  }

  private static void assertFourReads(ServerOutput o) {
    Map<Long, ServerOutput.Reply> byCookie = o.replies.stream()
        .collect(Collectors.toMap(ServerOutput.Reply::cookie, r -> r)); // a duplicate cookie throws
    assertEquals(4, byCookie.size());
    for (long[] r : READ4) {
      ServerOutput.Reply reply = byCookie.get(r[0]);
      assertTrue(reply.simple());
      assertEquals(0, reply.error());
      assertEquals(r[1], reply.offset());
      assertArrayEquals(java.util.Arrays.copyOfRange(bytes, (int) r[1], (int) r[1] + READ4_LENGTH), reply.data());
    }
  }
}
