package org.jverity.nbd;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the raw byte stream an NBD client sends (what {@code nbdkit -s} reads on stdin), and
 * remembers where its fields are so that a fuzzer can aim at them. Test helper.
 *
 * <pre>
 * C: u32 client flags
 * C: "IHAVEOPT" u32 option u32 length data                                  (per option)
 * C: u32 0x25609513 u16 flags u16 type u64 cookie u64 offset u32 length [payload]  (per request)
 * </pre>
 */
final class ClientStream {
  /** Kinds of field a fuzzer may overwrite. */
  enum Field {
    OPTION_CODE,
    OPTION_LENGTH,
    COMMAND_FLAGS,
    COMMAND_TYPE,
    REQUEST_OFFSET,
    REQUEST_LENGTH
  }

  /** A field of {@code size} bytes at {@code at}. */
  record Place(Field field, int at, int size) {}

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final List<Place> places = new ArrayList<>();

  ClientStream clientFlags(int flags) {
    return u32(flags);
  }

  ClientStream option(int option, byte[] data) {
    u64(Nbd.IHAVEOPT);
    places.add(new Place(Field.OPTION_CODE, out.size(), 4));
    u32(option);
    places.add(new Place(Field.OPTION_LENGTH, out.size(), 4));
    u32(data.length);
    out.writeBytes(data);
    return this;
  }

  ClientStream exportName(String name) {
    return option(NbdOption.EXPORT_NAME.wire, utf8(name));
  }

  /** NBD_OPT_GO (or INFO) on {@code name} with these info requests. */
  ClientStream go(int option, String name, int... infos) {
    byte[] n = utf8(name);
    ByteBuffer b = ByteBuffer.allocate(4 + n.length + 2 + 2 * infos.length);
    b.putInt(n.length).put(n).putShort((short) infos.length);
    for (int i : infos) {
      b.putShort((short) i);
    }
    return option(option, b.array());
  }

  ClientStream go(String name, int... infos) {
    return go(NbdOption.GO.wire, name, infos);
  }

  ClientStream structuredReply() {
    return option(NbdOption.STRUCTURED_REPLY.wire, new byte[0]);
  }

  /** LIST_META_CONTEXT or SET_META_CONTEXT on {@code export} with these queries. */
  ClientStream metaContext(int option, String export, String... queries) {
    ByteArrayOutputStream d = new ByteArrayOutputStream();
    byte[] e = utf8(export);
    d.writeBytes(ByteBuffer.allocate(4).putInt(e.length).array());
    d.writeBytes(e);
    d.writeBytes(ByteBuffer.allocate(4).putInt(queries.length).array());
    for (String q : queries) {
      byte[] qb = utf8(q);
      d.writeBytes(ByteBuffer.allocate(4).putInt(qb.length).array());
      d.writeBytes(qb);
    }
    return option(option, d.toByteArray());
  }

  ClientStream request(int flags, int type, long cookie, long offset, long length) {
    u32(Nbd.REQUEST_MAGIC);
    places.add(new Place(Field.COMMAND_FLAGS, out.size(), 2));
    u16(flags);
    places.add(new Place(Field.COMMAND_TYPE, out.size(), 2));
    u16(type);
    u64(cookie);
    places.add(new Place(Field.REQUEST_OFFSET, out.size(), 8));
    u64(offset);
    places.add(new Place(Field.REQUEST_LENGTH, out.size(), 4));
    u32((int) length);
    return this;
  }

  ClientStream read(long cookie, long offset, int length) {
    return request(0, NbdCommand.READ.wire, cookie, offset, length);
  }

  /** A WRITE with its payload. */
  ClientStream write(long cookie, long offset, byte[] payload) {
    request(0, NbdCommand.WRITE.wire, cookie, offset, payload.length);
    out.writeBytes(payload);
    return this;
  }

  ClientStream disc() {
    return request(0, NbdCommand.DISC.wire, 0, 0, 0);
  }

  ClientStream raw(byte[] bytes) {
    out.writeBytes(bytes);
    return this;
  }

  byte[] bytes() {
    return out.toByteArray();
  }

  List<Place> places() {
    return List.copyOf(places);
  }

  private ClientStream u16(int v) {
    out.write(v >>> 8);
    out.write(v);
    return this;
  }

  private ClientStream u32(int v) {
    out.writeBytes(ByteBuffer.allocate(4).putInt(v).array());
    return this;
  }

  private ClientStream u64(long v) {
    out.writeBytes(ByteBuffer.allocate(8).putLong(v).array());
    return this;
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
