package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.jverity.verify.CorruptBlockException;

/**
 * The READ, CACHE and BLOCK_STATUS handlers with no socket: an in-memory source, replies written to
 * a byte array and decoded here, events recorded.
 */
class ExportCommandsTest {
  private static final int BS = 4096;
  private static final int BLOCKS = 700; // 2.7 MiB: a structured READ of it is three pieces
  private static final byte[] BYTES = new byte[BLOCKS * BS];

  static {
    new Random(15).nextBytes(BYTES);
  }

  private final ByteArrayOutputStream wire = new ByteArrayOutputStream();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final ReadBuffers buffers = new ReadBuffers(ServerLimits.DEFAULTS.maxBytesInFlight());
  private int gone; // times the handlers found the client gone

  private ExportCommands commands(boolean structured, Set<Long> corrupt) {
    return commands(structured, corrupt, Set.of(), false);
  }

  /** Commands over blocks of which {@code zero} have the zero block's trusted digest. */
  private ExportCommands commands(
      boolean structured, Set<Long> corrupt, Set<Long> zero, boolean ignoreZeroBlocks) {
    Export export = Export.of("mem", new MemorySource(BYTES, BS, corrupt, zero, ignoreZeroBlocks));
    Session s = new Session(null, export, structured, structured, 0);
    NbdEvents record =
        new NbdEvents() {
          @Override
          public void request(String export, String command, long bytes, String error, long nanos) {
            events.add(export + " " + command + " " + bytes + " " + error);
          }

          @Override
          public void corruption(String export, CorruptBlockException e) {
            events.add(export + " corrupt block " + e.dataBlock());
          }
        };
    return new ExportCommands(
        s, new ReplyWriter(wire), buffers, ServerLimits.DEFAULTS, record, () -> gone++);
  }

  private static RequestHeader header(int type, int flags, long cookie, long offset, long length) {
    return new RequestHeader(flags, type, cookie, offset, length);
  }

  /** One reply chunk (or simple reply, type -1) as it went out. */
  private record Chunk(int flags, int type, long cookie, byte[] payload) {}

  /**
   * Decodes what went out: simple replies carry {@code simpleData} bytes of data when their error
   * is 0.
   */
  private List<Chunk> replies(int simpleData) throws IOException {
    var in = new DataInputStream(new ByteArrayInputStream(wire.toByteArray()));
    List<Chunk> out = new ArrayList<>();
    while (in.available() > 0) {
      int magic = in.readInt();
      if (magic == Nbd.SIMPLE_REPLY_MAGIC) {
        int error = in.readInt();
        long cookie = in.readLong();
        byte[] data = new byte[error == 0 ? simpleData : 0];
        in.readFully(data);
        out.add(new Chunk(error, -1, cookie, data));
      } else {
        assertThat(magic).isEqualTo(Nbd.STRUCTURED_REPLY_MAGIC);
        int flags = in.readUnsignedShort();
        int type = in.readUnsignedShort();
        long cookie = in.readLong();
        byte[] payload = new byte[in.readInt()];
        in.readFully(payload);
        out.add(new Chunk(flags, type, cookie, payload));
      }
    }
    return out;
  }

  private static long u64(byte[] b, int at) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = v << 8 | (b[at + i] & 0xff);
    }
    return v;
  }

  private static int u32(byte[] b, int at) {
    return (b[at] & 0xff) << 24
        | (b[at + 1] & 0xff) << 16
        | (b[at + 2] & 0xff) << 8
        | (b[at + 3] & 0xff);
  }

  @Test
  @DisplayName(
      "a simple READ: one reply, header then the verified bytes; the event names read and its bytes")
  void simpleRead() throws IOException {
    ExportCommands c = commands(false, Set.of());

    c.read(header(0, 0, 7, 5000, 10000), System.nanoTime(), null);

    List<Chunk> r = replies(10000);
    assertThat(r).hasSize(1);
    assertThat(r.get(0).flags()).as("error").isZero();
    assertThat(r.get(0).cookie()).isEqualTo(7);
    assertThat(r.get(0).payload()).isEqualTo(Arrays.copyOfRange(BYTES, 5000, 15000));
    assertThat(events).containsExactly("mem read 10000 null");
  }

  @Test
  @DisplayName(
      "a structured READ of 2.7 MiB: OFFSET_DATA chunks of 1 MiB at their offsets, DONE on the last only")
  void structuredReadInPieces() throws IOException {
    ExportCommands c = commands(true, Set.of());

    c.read(
        header(0, 0, 8, 0, BYTES.length),
        System.nanoTime(),
        c.inlineBuffer(header(0, 0, 8, 0, BYTES.length)));

    List<Chunk> r = replies(0);
    assertThat(r).hasSize(3);
    long at = 0;
    for (int i = 0; i < 3; i++) {
      Chunk k = r.get(i);
      assertThat(k.type()).isEqualTo(Nbd.REPLY_TYPE_OFFSET_DATA);
      assertThat(k.flags()).isEqualTo(i == 2 ? Nbd.REPLY_FLAG_DONE : 0);
      assertThat(u64(k.payload(), 0)).isEqualTo(at);
      byte[] data = Arrays.copyOfRange(k.payload(), 8, k.payload().length);
      assertThat(data).isEqualTo(Arrays.copyOfRange(BYTES, (int) at, (int) at + data.length));
      at += data.length;
    }
    assertThat(at).isEqualTo(BYTES.length);
    assertThat(events).containsExactly("mem read " + BYTES.length + " null");
  }

  @Test
  @DisplayName(
      "a structured READ over a corrupt block: the verified bytes before it, then ERROR_OFFSET naming its offset")
  void structuredReadStopsAtTheCorruptBlock() throws IOException {
    ExportCommands c = commands(true, Set.of(3L));

    c.read(header(0, 0, 9, 1000, 5 * BS), System.nanoTime(), null);

    List<Chunk> r = replies(0);
    assertThat(r).hasSize(2);
    assertThat(r.get(0).type()).isEqualTo(Nbd.REPLY_TYPE_OFFSET_DATA);
    assertThat(u64(r.get(0).payload(), 0)).isEqualTo(1000);
    assertThat(Arrays.copyOfRange(r.get(0).payload(), 8, r.get(0).payload().length))
        .isEqualTo(Arrays.copyOfRange(BYTES, 1000, 3 * BS));
    Chunk error = r.get(1);
    assertThat(error.type()).isEqualTo(Nbd.REPLY_TYPE_ERROR_OFFSET);
    assertThat(error.flags()).isEqualTo(Nbd.REPLY_FLAG_DONE);
    assertThat(u32(error.payload(), 0)).isEqualTo(NbdError.EIO.wire);
    assertThat(u64(error.payload(), error.payload().length - 8)).isEqualTo(3L * BS);
    assertThat(events)
        .containsExactly("mem corrupt block 3", "mem read " + (3 * BS - 1000) + " EIO");
  }

  @Test
  @DisplayName("a simple READ over a corrupt block: EIO and no data")
  void simpleReadOfACorruptBlock() throws IOException {
    ExportCommands c = commands(false, Set.of(1L));

    c.read(header(0, 0, 10, 0, 2 * BS), System.nanoTime(), null);

    List<Chunk> r = replies(0);
    assertThat(r).hasSize(1);
    assertThat(r.get(0).flags()).as("error").isEqualTo(NbdError.EIO.wire);
    assertThat(events).containsExactly("mem corrupt block 1", "mem read 0 EIO");
  }

  @Test
  @DisplayName(
      "BLOCK_STATUS under ignore_zero_blocks: runs of data and of holes, in the base:allocation context")
  void blockStatusReportsZeroBlocksAsHoles() throws IOException {
    ExportCommands c = commands(true, Set.of(), Set.of(2L, 3L, 6L), true);

    c.blockStatus(header(7, 0, 11, 0, 8 * BS), System.nanoTime());

    List<Chunk> r = replies(0);
    assertThat(r).hasSize(1);
    assertThat(r.get(0).type()).isEqualTo(Nbd.REPLY_TYPE_BLOCK_STATUS);
    byte[] p = r.get(0).payload();
    assertThat(u32(p, 0)).isEqualTo(Nbd.BASE_ALLOCATION_ID);
    int hole = Nbd.STATE_HOLE | Nbd.STATE_ZERO;
    int[] want = {2 * BS, 0, 2 * BS, hole, 2 * BS, 0, BS, hole, BS, 0};
    int[] got = new int[(p.length - 4) / 4];
    for (int i = 0; i < got.length; i++) {
      got[i] = u32(p, 4 + 4 * i);
    }
    assertThat(got).containsExactly(want);
  }

  @Test
  @DisplayName(
      "BLOCK_STATUS without ignore_zero_blocks (defect 7): trusted zero blocks are ZERO, not holes; the rest data")
  void blockStatusWithoutIgnoreZeroBlocksReportsZeroRuns() throws IOException {
    ExportCommands c = commands(true, Set.of(), Set.of(2L, 3L, 6L), false);

    c.blockStatus(header(7, 0, 12, BS, 6 * BS + 5), System.nanoTime());

    byte[] p = replies(0).get(0).payload();
    int[] want = {BS, 0, 2 * BS, Nbd.STATE_ZERO, 2 * BS, 0, BS, Nbd.STATE_ZERO, 5, 0};
    int[] got = new int[(p.length - 4) / 4];
    for (int i = 0; i < got.length; i++) {
      got[i] = u32(p, 4 + 4 * i);
    }
    assertThat(got).containsExactly(want);
  }

  @Test
  @DisplayName("BLOCK_STATUS of an export with no zero block: one extent of data")
  void blockStatusWithoutZeroBlocksIsOneExtent() throws IOException {
    ExportCommands c = commands(true, Set.of());

    c.blockStatus(header(7, 0, 12, BS, 3 * BS + 5), System.nanoTime());

    byte[] p = replies(0).get(0).payload();
    assertThat(p.length).isEqualTo(12);
    assertThat(u32(p, 4)).isEqualTo(3 * BS + 5);
    assertThat(u32(p, 8)).isZero();
  }

  @Test
  @DisplayName("CACHE: verifies the range and answers OK; a corrupt block in it answers EIO")
  void cache() throws IOException {
    commands(false, Set.of()).cache(header(5, 0, 13, 0, 10 * BS), System.nanoTime());
    commands(false, Set.of(4L)).cache(header(5, 0, 14, 0, 10 * BS), System.nanoTime());

    List<Chunk> r = replies(0);
    assertThat(r).extracting(Chunk::cookie).containsExactly(13L, 14L);
    assertThat(r).extracting(Chunk::flags).containsExactly(0, NbdError.EIO.wire);
    assertThat(events)
        .containsExactly("mem cache 0 null", "mem corrupt block 4", "mem cache 0 EIO");
  }

  @Test
  @DisplayName(
      "every buffer a request took is given back: taking the same again allocates nothing more")
  void buffersGoBack() throws IOException {
    ExportCommands c = commands(true, Set.of(2L));
    c.read(header(0, 0, 15, 0, 4 * BS), System.nanoTime(), null);
    long held = buffers.held();

    c.read(header(0, 0, 16, 0, 4 * BS), System.nanoTime(), null);
    c.cache(header(5, 0, 17, 0, 4 * BS), System.nanoTime());
    c.cache(header(5, 0, 18, 0, 4 * BS), System.nanoTime());

    assertThat(held).isPositive();
    assertThat(buffers.held())
        .isEqualTo(held + 4 * BS); // the CACHE buffer once; the READ one reused
  }

  @Test
  @DisplayName("a reply that cannot be sent tells the connection the client is gone")
  void aClientGoneIsReported() {
    Export export = Export.of("mem", new MemorySource(BYTES, BS, Set.of(0L)));
    ExportCommands c =
        new ExportCommands(
            new Session(null, export, true, true, 0),
            new ReplyWriter(
                new OutputStream() {
                  @Override
                  public void write(int b) throws IOException {
                    throw new IOException("broken pipe");
                  }
                }),
            buffers,
            ServerLimits.DEFAULTS,
            NbdEvents.NONE,
            () -> gone++);

    c.cache(header(5, 0, 19, 0, BS), System.nanoTime());

    assertThat(gone).isEqualTo(1);
  }
}
