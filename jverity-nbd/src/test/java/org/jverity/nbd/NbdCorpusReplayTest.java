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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.verify.ReaderOptions;

/**
 * nbdkit's fuzzing seeds (src/test/resources/nbd-corpus, copied from nbdkit's fuzzing/testcase_dir)
 * replayed through {@link NbdServer#serve} as {@code nbdkit -s} reads them: each must end promptly
 * in a well-formed reply sequence with the image's bytes for reads and EPERM for the write.
 */
class NbdCorpusReplayTest {
  private static final Duration PROMPTLY = Duration.ofSeconds(2);
  private static final int READ4_LENGTH = 512;

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
  void theSeedsAreNbdkitsFiles() throws IOException {
    assertEquals(
        54,
        resource("newstyle-cflags-go-read").length,
        "NBD.md §2.1: newstyle-cflags-go-read is 54 bytes");
    assertEquals(70, resource("newstyle-cflags-go-write").length);
  }

  @Test
  void clientFlagsThenEofGetsTheGreetingOnly() throws Exception {
    ServerOutput o = replay("newstyle-cflags");
    assertTrue(o.options.isEmpty());
    assertFalse(o.transmission);
  }

  @Test
  void exportNameOfAnUnknownExportEndsTheSessionAfterTheGreeting() throws Exception {
    ServerOutput o = replay("newstyle-cflags-exportname"); // "/": not an export of this server
    assertTrue(o.options.isEmpty());
    assertFalse(o.transmission);
  }

  @Test
  void readsAfterAnUnknownExportNameAreNeverAnswered() throws Exception {
    ServerOutput o = replay("newstyle-cflags-exportname-read4");
    assertFalse(o.transmission);
    assertTrue(o.replies.isEmpty());
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
    assertTrue(go.stream().allMatch(r -> r.option() == NbdOption.GO.wire), "replies to GO only");
    assertEquals(Nbd.REP_ACK, go.getLast().type());
    ServerOutput.OptionReply info = go.getFirst();
    assertEquals(Nbd.REP_INFO, info.type());
    ByteBuffer b = ByteBuffer.wrap(info.data());
    assertEquals(Nbd.INFO_EXPORT, b.getShort());
    assertEquals(bytes.length, b.getLong());
    assertEquals(
        Nbd.TF_HAS_FLAGS
            | Nbd.TF_READ_ONLY
            | Nbd.TF_SEND_FLUSH
            | Nbd.TF_CAN_MULTI_CONN
            | Nbd.TF_SEND_CACHE,
        b.getShort(),
        "nbdkit -r's 0x0507 (no DF: no structured replies)");
  }

  private static void assertFourReads(ServerOutput o) {
    assertEquals(4, o.replies.size()); // four READs of 512 B at 0, all with cookie 0
    for (ServerOutput.Reply reply : o.replies) {
      assertTrue(reply.simple());
      assertEquals(0, reply.cookie());
      assertEquals(0, reply.error());
      assertEquals(0, reply.offset());
      assertArrayEquals(java.util.Arrays.copyOf(bytes, READ4_LENGTH), reply.data());
    }
  }
}
