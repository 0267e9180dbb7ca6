package org.jverity.nbd;

import java.io.DataInputStream;
import java.io.IOException;

/**
 * One transmission-phase request as it came off the wire, before any check but its magic. A WRITE's
 * payload follows it on the stream, unread.
 *
 * <pre>
 * C: u32 0x25609513 u16 flags u16 type u64 cookie u64 offset u32 length [WRITE payload]
 * </pre>
 *
 * @param flags the command flags ({@code Nbd.CMD_FLAG_*})
 * @param type the command's wire code, known or not
 * @param cookie the client's handle, sent back in every reply to this request
 * @param offset the first byte, as sent (unchecked; may be negative as a signed long)
 * @param length bytes (u32, unsigned)
 */
record RequestHeader(int flags, int type, long cookie, long offset, long length) {

  /** Reads one request header; a wrong magic is a protocol error (the stream is out of step). */
  static RequestHeader decode(DataInputStream in) throws IOException {
    int magic = in.readInt();
    if (magic != Nbd.REQUEST_MAGIC) {
      throw new NbdProtocolException(
          "request magic 0x" + Integer.toHexString(magic) + " (expected: 0x25609513)");
    }
    int flags = in.readUnsignedShort();
    int type = in.readUnsignedShort();
    long cookie = in.readLong();
    long offset = in.readLong();
    long length = Integer.toUnsignedLong(in.readInt());
    return new RequestHeader(flags, type, cookie, offset, length);
  }

  /** The command, or null for a wire code this server does not know. */
  NbdCommand command() {
    return NbdCommand.fromWire(type);
  }

  /** The command's name in lower case, as events name it ("read", ...), or "unknown". */
  String commandName() {
    NbdCommand c = command();
    return c == null ? "unknown" : c.label;
  }

  boolean has(int flag) {
    return (flags & flag) != 0;
  }
}
