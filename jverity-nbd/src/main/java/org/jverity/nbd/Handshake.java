package org.jverity.nbd;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The fixed-newstyle handshake, server side: the greeting, the client's flags, then options until
 * one starts transmission (GO or EXPORT_NAME) or the client leaves (ABORT, or closing). Unknown
 * options get NBD_REP_ERR_UNSUP and the next option is still read. Limits on the number and size of
 * options end the connection with a {@link NbdProtocolException}. Not thread-safe: one per
 * connection.
 *
 * <pre>
 * S: "NBDMAGIC" "IHAVEOPT" u16 flags(FIXED_NEWSTYLE|NO_ZEROES)   C: u32 client flags
 * C: "IHAVEOPT" u32 option u32 length data                       (repeated)
 * S: u64 0x3e889045565a9 u32 option u32 reply type u32 length data  (per reply)
 * </pre>
 */
final class Handshake {
  private final Map<String, Export> exports;
  private final NbdTls tls; // null: no TLS
  private final ServerLimits limits;
  private Transport transport;
  private DataInputStream in;
  private DataOutputStream out;
  private boolean noZeroes;
  private boolean structured;
  private String metaExport; // the export SET_META_CONTEXT selected base:allocation for; or null
  private final boolean shuttingDown;

  Handshake(
      Transport transport,
      Map<String, Export> exports,
      NbdTls tls,
      ServerLimits limits,
      boolean shuttingDown) {
    this.exports = exports;
    this.tls = tls;
    this.limits = limits;
    this.shuttingDown = shuttingDown;
    use(transport);
  }

  private void use(Transport t) {
    transport = t;
    in = new DataInputStream(t.in());
    out = new DataOutputStream(t.out());
  }

  /**
   * A TLS record's first two bytes, a handshake (0x16) of TLS 1.x (0x03): what a client that starts
   * TLS at once (TLS from the first byte, as https) sends where NBD's client flags or option
   * belong.
   */
  private static final int TLS_RECORD = 0x1603;

  private static final String TLS_FIRST =
      "the client sent a TLS ClientHello without STARTTLS (NBD negotiates"
          + " TLS with the STARTTLS option after the greeting: use nbds:// or the client's --tls)";

  /** Runs the handshake: the session to serve, or null when the client aborted. */
  Session run() throws IOException {
    out.writeLong(Nbd.NBDMAGIC);
    out.writeLong(Nbd.IHAVEOPT);
    out.writeShort(Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES);
    out.flush();
    int clientFlags = in.readInt();
    if (clientFlags >>> 16 == TLS_RECORD) {
      throw new NbdProtocolException(TLS_FIRST);
    }
    if ((clientFlags & ~Nbd.CLIENT_FLAGS_KNOWN) != 0
        || (clientFlags & Nbd.FLAG_FIXED_NEWSTYLE) == 0) {
      throw new NbdProtocolException(
          "client flags 0x"
              + Integer.toHexString(clientFlags)
              + " (expected: fixed newstyle, optionally no zeroes)");
    }
    noZeroes = (clientFlags & Nbd.FLAG_NO_ZEROES) != 0;
    for (int count = 1; ; count++) {
      long magic = in.readLong();
      if (magic >>> 48 == TLS_RECORD) {
        throw new NbdProtocolException(TLS_FIRST);
      }
      if (magic != Nbd.IHAVEOPT) {
        throw new NbdProtocolException(
            "option magic 0x" + Long.toHexString(magic) + " (expected: IHAVEOPT)");
      }
      int option = in.readInt();
      long length = Integer.toUnsignedLong(in.readInt());
      if (count > limits.maxOptions()) {
        throw new NbdProtocolException(
            "more than " + limits.maxOptions() + " options in one handshake");
      }
      if (length > limits.maxOptionLength()) {
        throw new NbdProtocolException(
            "option "
                + option
                + " of "
                + length
                + " bytes (expected: at most "
                + limits.maxOptionLength()
                + ")");
      }
      byte[] data = new byte[(int) length];
      in.readFully(data);
      Session s = option(option, NbdOption.fromWire(option), data);
      if (s != null) {
        return s.export() == null ? null : s;
      }
    }
  }

  /**
   * Answers one option; a session when transmission starts (with a null export: the client left).
   *
   * @param code the option's code on the wire, which every reply echoes (an unknown one too)
   */
  private Session option(int code, NbdOption option, byte[] data) throws IOException {
    boolean tlsRequired = tls != null && tls.mode() == NbdTls.Mode.REQUIRE && !transport.isTls();
    if (tlsRequired && option != NbdOption.STARTTLS && option != NbdOption.ABORT) {
      if (option == NbdOption.EXPORT_NAME) {
        throw new NbdProtocolException("EXPORT_NAME before STARTTLS, and TLS is required");
      }
      reply(code, Nbd.REP_ERR_TLS_REQD, "TLS is required: send NBD_OPT_STARTTLS first");
      return null;
    }
    switch (option) {
      case EXPORT_NAME -> {
        return exportName(data);
      }
      case ABORT -> {
        reply(code, Nbd.REP_ACK, new byte[0]);
        return new Session(transport, null, false, false, 0);
      }
      case LIST -> list(data);
      case STARTTLS -> startTls(data);
      case INFO, GO -> {
        return infoOrGo(option, data);
      }
      case STRUCTURED_REPLY -> {
        if (data.length != 0) {
          reply(code, Nbd.REP_ERR_INVALID, "structured reply takes no data");
        } else if (structured) {
          reply(code, Nbd.REP_ERR_INVALID, "structured replies are already negotiated");
        } else {
          structured = true;
          reply(code, Nbd.REP_ACK, new byte[0]);
        }
      }
      case LIST_META_CONTEXT, SET_META_CONTEXT -> metaContext(option, data);
      case UNKNOWN -> reply(code, Nbd.REP_ERR_UNSUP, "option " + code + " is not supported");
    }
    return null;
  }

  private Session exportName(byte[] data) throws IOException {
    String name = NbdStrings.decode(data, 0, data.length);
    Export e = name == null ? null : lookup(name);
    if (e == null || shuttingDown) {
      // EXPORT_NAME cannot carry an error: the spec says to end the session.
      throw new NbdProtocolException(
          shuttingDown ? "shutting down" : "no export named '" + name + "'");
    }
    int flags = flags(e);
    out.writeLong(e.size());
    out.writeShort(flags);
    if (!noZeroes) {
      out.write(new byte[124]);
    }
    out.flush();
    return new Session(transport, e, structured, structured && e.name().equals(metaExport), flags);
  }

  private void list(byte[] data) throws IOException {
    if (data.length != 0) {
      reply(NbdOption.LIST, Nbd.REP_ERR_INVALID, "list takes no data");
      return;
    }
    for (Export e : exports.values()) {
      byte[] name = NbdStrings.bytes(e.name());
      byte[] description = NbdStrings.bytes(e.description());
      ByteBuffer b = ByteBuffer.allocate(4 + name.length + description.length);
      b.putInt(name.length).put(name).put(description);
      reply(NbdOption.LIST, Nbd.REP_SERVER, b.array());
    }
    reply(NbdOption.LIST, Nbd.REP_ACK, new byte[0]);
  }

  private void startTls(byte[] data) throws IOException {
    if (tls == null) {
      reply(NbdOption.STARTTLS, Nbd.REP_ERR_POLICY, "TLS is not configured on this server");
    } else if (data.length != 0) {
      reply(NbdOption.STARTTLS, Nbd.REP_ERR_INVALID, "STARTTLS takes no data");
    } else if (transport.isTls()) {
      reply(NbdOption.STARTTLS, Nbd.REP_ERR_INVALID, "TLS is already on");
    } else if (!transport.canStartTls()) {
      reply(NbdOption.STARTTLS, Nbd.REP_ERR_POLICY, "TLS is only offered over TCP");
    } else {
      reply(NbdOption.STARTTLS, Nbd.REP_ACK, new byte[0]);
      // Options negotiated before TLS do not carry over (the spec: a client must redo them).
      structured = false;
      metaExport = null;
      use(transport.startTls(tls));
    }
  }

  private Session infoOrGo(NbdOption option, byte[] data) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(data);
    if (b.remaining() < 6) {
      reply(option, Nbd.REP_ERR_INVALID, "info/go data too short");
      return null;
    }
    long nameLength = Integer.toUnsignedLong(b.getInt());
    if (nameLength > b.remaining() - 2) {
      reply(
          option,
          Nbd.REP_ERR_INVALID,
          "export name length " + nameLength + " runs past the option");
      return null;
    }
    String name = NbdStrings.decode(data, 4, (int) nameLength);
    b.position(4 + (int) nameLength);
    int requests = Short.toUnsignedInt(b.getShort());
    if (b.remaining() != 2 * requests) {
      reply(option, Nbd.REP_ERR_INVALID, requests + " information requests do not fill the option");
      return null;
    }
    boolean wantName = false;
    boolean wantDescription = false;
    for (int i = 0; i < requests; i++) {
      int type = Short.toUnsignedInt(b.getShort());
      wantName |= type == Nbd.INFO_NAME;
      wantDescription |= type == Nbd.INFO_DESCRIPTION;
    }
    if (name == null) {
      reply(option, Nbd.REP_ERR_INVALID, "export name is not UTF-8 or holds a NUL");
      return null;
    }
    if (shuttingDown) {
      reply(option, Nbd.REP_ERR_SHUTDOWN, "the server is shutting down");
      return null;
    }
    Export e = lookup(name);
    if (e == null) {
      reply(option, Nbd.REP_ERR_UNKNOWN, "no export named '" + name + "'");
      return null;
    }
    int flags = flags(e);
    reply(
        option,
        Nbd.REP_INFO,
        ByteBuffer.allocate(12)
            .putShort((short) Nbd.INFO_EXPORT)
            .putLong(e.size())
            .putShort((short) flags)
            .array());
    if (wantName) {
      byte[] n = NbdStrings.bytes(e.name());
      reply(
          option,
          Nbd.REP_INFO,
          ByteBuffer.allocate(2 + n.length).putShort((short) Nbd.INFO_NAME).put(n).array());
    }
    if (wantDescription && !e.description().isEmpty()) {
      byte[] d = NbdStrings.bytes(e.description());
      reply(
          option,
          Nbd.REP_INFO,
          ByteBuffer.allocate(2 + d.length).putShort((short) Nbd.INFO_DESCRIPTION).put(d).array());
    }
    // Sent whether asked or not (allowed): any alignment is served, the data block is preferred.
    reply(
        option,
        Nbd.REP_INFO,
        ByteBuffer.allocate(14)
            .putShort((short) Nbd.INFO_BLOCK_SIZE)
            .putInt(1)
            .putInt(e.blockSize())
            .putInt(limits.maxRequestLength())
            .array());
    reply(option, Nbd.REP_ACK, new byte[0]);
    if (option == NbdOption.INFO) {
      return null;
    }
    return new Session(transport, e, structured, structured && e.name().equals(metaExport), flags);
  }

  /** LIST_META_CONTEXT and SET_META_CONTEXT: only {@code base:allocation} exists. */
  private void metaContext(NbdOption option, byte[] data) throws IOException {
    boolean set = option == NbdOption.SET_META_CONTEXT;
    if (set) {
      metaExport = null; // a SET replaces the selection, even when it fails
    }
    if (set && !structured) {
      reply(option, Nbd.REP_ERR_INVALID, "set meta context needs structured replies first");
      return;
    }
    ByteBuffer b = ByteBuffer.wrap(data);
    List<String> queries = new ArrayList<>();
    String name;
    try {
      int nameLength = checkedLength(b);
      name = string(data, b, nameLength);
      int count = b.getInt();
      if (count < 0 || count > b.remaining() / 4) {
        throw new IllegalArgumentException();
      }
      for (int i = 0; i < count; i++) {
        queries.add(string(data, b, checkedLength(b)));
      }
      if (b.hasRemaining()) {
        throw new IllegalArgumentException();
      }
    } catch (RuntimeException malformed) {
      reply(option, Nbd.REP_ERR_INVALID, "malformed meta context request");
      return;
    }
    Export chosen = lookup(name);
    if (chosen == null) {
      reply(option, Nbd.REP_ERR_UNKNOWN, "no export named '" + name + "'");
      return;
    }
    boolean allocation =
        queries.isEmpty()
            ? !set
            : queries.stream()
                .anyMatch(q -> q.equals(Nbd.BASE_ALLOCATION) || (!set && q.equals("base:")));
    if (allocation) {
      byte[] n = NbdStrings.bytes(Nbd.BASE_ALLOCATION);
      reply(
          option,
          Nbd.REP_META_CONTEXT,
          ByteBuffer.allocate(4 + n.length)
              .putInt(set ? Nbd.BASE_ALLOCATION_ID : 0)
              .put(n)
              .array());
      if (set) {
        metaExport = chosen.name();
      }
    }
    reply(option, Nbd.REP_ACK, new byte[0]);
  }

  /**
   * The export of that name; the empty name, when no export has it, means the first export (the
   * default export, as qemu-nbd serves it): clients such as {@code nbdfuse --command} ask for "".
   */
  private Export lookup(String name) {
    Export e = exports.get(name);
    return e == null && name.isEmpty() ? exports.values().iterator().next() : e;
  }

  private static int checkedLength(ByteBuffer b) {
    int n = b.getInt();
    if (n < 0 || n > b.remaining() || n > Nbd.MAX_STRING) {
      throw new IllegalArgumentException();
    }
    return n;
  }

  private static String string(byte[] data, ByteBuffer b, int length) {
    String s = NbdStrings.decode(data, b.position(), length);
    if (s == null) {
      throw new IllegalArgumentException();
    }
    b.position(b.position() + length);
    return s;
  }

  private int flags(Export e) {
    return Nbd.TF_HAS_FLAGS
        | Nbd.TF_READ_ONLY
        | Nbd.TF_SEND_FLUSH
        | Nbd.TF_CAN_MULTI_CONN
        | Nbd.TF_SEND_CACHE
        | (structured ? Nbd.TF_SEND_DF : 0);
  }

  private void reply(NbdOption option, int type, String message) throws IOException {
    reply(option.wire, type, message);
  }

  private void reply(NbdOption option, int type, byte[] data) throws IOException {
    reply(option.wire, type, data);
  }

  private void reply(int option, int type, String message) throws IOException {
    reply(option, type, NbdStrings.bytes(message));
  }

  private void reply(int option, int type, byte[] data) throws IOException {
    out.writeLong(Nbd.OPTION_REPLY_MAGIC);
    out.writeInt(option);
    out.writeInt(type);
    out.writeInt(data.length);
    out.write(data);
    out.flush();
  }

  /** Reads past a short stream as the protocol error it is. */
  static boolean isEndOfStream(IOException e) {
    return e instanceof EOFException;
  }
}
