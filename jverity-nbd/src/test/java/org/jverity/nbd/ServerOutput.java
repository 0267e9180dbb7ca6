package org.jverity.nbd;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Parses everything a server wrote on one connection and checks that it is a well-formed reply
 * sequence: the greeting, option replies (or the EXPORT_NAME reply), then simple replies and
 * structured chunks whose data are exactly the image's bytes. Which cookies carry READ data comes
 * from the requests the client sent ({@link Requests}). Any malformation is an {@link
 * AssertionError} naming the byte offset. Test helper.
 */
final class ServerOutput {
  record OptionReply(int option, int type, byte[] data) {}

  /**
   * One simple reply ({@code simple}, {@code type} -1) or structured chunk. {@code offset} is the
   * data's offset for READ data (simple or OFFSET_DATA), else -1; {@code data} the data or payload.
   */
  record Reply(
      boolean simple, int flags, int type, long cookie, int error, long offset, byte[] data) {
    boolean done() {
      return simple || (flags & Nbd.REPLY_FLAG_DONE) != 0;
    }
  }

  /** A request as the client sent it. */
  record Request(int flags, int type, long cookie, long offset, long length) {}

  /** Requests by cookie; a cookie may have been sent more than once. */
  static final class Requests {
    final Map<Long, List<Request>> byCookie = new HashMap<>();

    void add(Request r) {
      byCookie.computeIfAbsent(r.cookie(), c -> new ArrayList<>()).add(r);
    }

    /**
     * Every 28-byte request header the server could have read anywhere in {@code stream}: each
     * position holding the request magic. A superset of what the server parsed.
     */
    static Requests scan(byte[] stream) {
      Requests rs = new Requests();
      ByteBuffer b = ByteBuffer.wrap(stream);
      for (int i = 0; i + 28 <= stream.length; i++) {
        if (b.getInt(i) == Nbd.REQUEST_MAGIC) {
          rs.add(
              new Request(
                  Short.toUnsignedInt(b.getShort(i + 4)),
                  Short.toUnsignedInt(b.getShort(i + 6)),
                  b.getLong(i + 8),
                  b.getLong(i + 16),
                  Integer.toUnsignedLong(b.getInt(i + 24))));
        }
      }
      return rs;
    }
  }

  final List<OptionReply> options = new ArrayList<>();

  /** The EXPORT_NAME reply's size, or -1 when transmission did not start that way. */
  long exportNameSize = -1;

  boolean structured;
  boolean transmission;
  final List<Reply> replies = new ArrayList<>();

  private final byte[] out;
  private final byte[] image;
  private final Requests requests;
  private final ByteBuffer b;
  private final Map<Long, Integer> completions = new HashMap<>();

  private ServerOutput(byte[] out, byte[] image, Requests requests) {
    this.out = out;
    this.image = image;
    this.requests = requests;
    this.b = ByteBuffer.wrap(out);
  }

  static ServerOutput parse(byte[] out, byte[] image, Requests requests) {
    ServerOutput o = new ServerOutput(out, image, requests);
    o.parse();
    return o;
  }

  /** The replies (simple or chunks) to {@code cookie}, in the order sent. */
  List<Reply> repliesTo(long cookie) {
    return replies.stream().filter(r -> r.cookie() == cookie).toList();
  }

  private void parse() {
    need(18, "greeting");
    check(b.getLong() == Nbd.NBDMAGIC, "greeting: NBDMAGIC");
    check(b.getLong() == Nbd.IHAVEOPT, "greeting: IHAVEOPT");
    check(
        b.getShort() == (Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES),
        "greeting: handshake flags 3");
    boolean sawExport = false; // an INFO_EXPORT since the last ACK
    while (b.hasRemaining() && !transmission) {
      int at = b.position();
      need(8, "option reply or export-name reply");
      long magic = b.getLong(at);
      if (magic == Nbd.OPTION_REPLY_MAGIC) {
        need(20, "option reply header");
        b.getLong();
        int option = b.getInt();
        int type = b.getInt();
        long length = Integer.toUnsignedLong(b.getInt());
        need(length, "option reply data");
        byte[] data = new byte[(int) length];
        b.get(data);
        options.add(new OptionReply(option, type, data));
        checkOptionReply(at, option, type, data);
        if (type == Nbd.REP_INFO
            && Short.toUnsignedInt(ByteBuffer.wrap(data).getShort()) == Nbd.INFO_EXPORT) {
          sawExport = true;
        }
        if (type == Nbd.REP_ACK) {
          if (option == NbdOption.GO.wire) {
            check(sawExport, "GO acknowledged without NBD_INFO_EXPORT, at byte " + at);
            transmission = true;
          } else if (option == NbdOption.STRUCTURED_REPLY.wire) {
            structured = true;
          } else if (option == NbdOption.ABORT.wire) {
            check(
                !b.hasRemaining(),
                "bytes after the ABORT acknowledgement, at byte " + b.position());
          }
          sawExport = false;
        } else if (type < 0) {
          sawExport = false;
        }
      } else if (magic == image.length) {
        need(10, "export-name reply");
        exportNameSize = b.getLong();
        int flags = Short.toUnsignedInt(b.getShort());
        checkTransmissionFlags(flags, at);
        if (b.remaining() >= 124 && b.getInt(b.position()) == 0) { // no NO_ZEROES: 124 zero bytes
          byte[] zeroes = new byte[124];
          b.get(zeroes);
          check(
              Arrays.equals(zeroes, new byte[124]),
              "export-name reply padding is not zero, at byte " + at);
        }
        transmission = true;
      } else {
        throw fail(at, "neither an option reply nor an export-name reply");
      }
    }
    while (b.hasRemaining()) {
      int at = b.position();
      need(4, "reply magic");
      int magic = b.getInt();
      if (magic == Nbd.SIMPLE_REPLY_MAGIC) {
        simpleReply(at);
      } else if (magic == Nbd.STRUCTURED_REPLY_MAGIC) {
        chunk(at);
      } else {
        throw fail(at, "reply magic 0x" + Integer.toHexString(magic));
      }
    }
  }

  private void checkOptionReply(int at, int option, int type, byte[] data) {
    ByteBuffer d = ByteBuffer.wrap(data);
    switch (type) {
      case Nbd.REP_ACK -> check(data.length == 0, "ACK with data, at byte " + at);
      case Nbd.REP_SERVER ->
          check(
              option == NbdOption.LIST.wire
                  && data.length >= 4
                  && Integer.toUnsignedLong(d.getInt()) <= data.length - 4,
              "bad NBD_REP_SERVER, at byte " + at);
      case Nbd.REP_INFO -> {
        check(
            option == NbdOption.INFO.wire || option == NbdOption.GO.wire,
            "INFO reply to option " + option + " at byte " + at);
        check(data.length >= 2, "INFO reply shorter than 2 bytes, at byte " + at);
        int info = Short.toUnsignedInt(d.getShort());
        if (info == Nbd.INFO_EXPORT) {
          check(data.length == 12, "INFO_EXPORT length " + data.length + " at byte " + at);
          check(d.getLong() == image.length, "INFO_EXPORT size, at byte " + at);
          checkTransmissionFlags(Short.toUnsignedInt(d.getShort()), at);
        } else if (info == Nbd.INFO_BLOCK_SIZE) {
          check(data.length == 14, "INFO_BLOCK_SIZE length " + data.length + " at byte " + at);
        }
      }
      case Nbd.REP_META_CONTEXT ->
          check(
              (option == NbdOption.LIST_META_CONTEXT.wire
                      || option == NbdOption.SET_META_CONTEXT.wire)
                  && data.length > 4,
              "bad NBD_REP_META_CONTEXT, at byte " + at);
      default ->
          check(
              type < 0 && type <= Nbd.REP_ERR_UNSUP + 9,
              "option reply type 0x" + Integer.toHexString(type) + " at byte " + at);
    }
  }

  private void checkTransmissionFlags(int flags, int at) {
    check(
        (flags & (Nbd.TF_HAS_FLAGS | Nbd.TF_READ_ONLY)) == (Nbd.TF_HAS_FLAGS | Nbd.TF_READ_ONLY),
        "transmission flags 0x"
            + Integer.toHexString(flags)
            + " lack HAS_FLAGS|READ_ONLY, at byte "
            + at);
  }

  private void simpleReply(int at) {
    need(12, "simple reply");
    int error = b.getInt();
    long cookie = b.getLong();
    List<Request> sent = sent(cookie, at);
    long offset = -1;
    byte[] data = new byte[0];
    if (error == 0) {
      // The longest read of that cookie whose bytes are there: a client may reuse a cookie, and a
      // shorter read from the same offset matches a prefix of a longer one's data (a fuzzed
      // stream, three READs of cookie 0 from offset 0, had the 9472-byte reply taken as 512).
      Request read = null;
      for (Request r : sent) {
        if (r.type() == NbdCommand.READ.wire
            && (read == null || r.length() > read.length())
            && r.length() <= b.remaining()
            && r.offset() >= 0
            && r.offset() + r.length() <= image.length
            && Arrays.equals(
                out,
                b.position(),
                b.position() + (int) r.length(),
                image,
                (int) r.offset(),
                (int) (r.offset() + r.length()))) {
          read = r;
        }
      }
      if (read != null) {
        check(
            !structured,
            "a simple reply with READ data after structured replies were negotiated, at byte "
                + at);
        offset = read.offset();
        data = new byte[(int) read.length()];
        b.get(data);
      } else if (sent.stream().allMatch(r -> r.type() == NbdCommand.READ.wire)) {
        throw fail(
            at,
            "a successful READ reply whose data are not the image's bytes (cookie " + cookie + ")");
      }
    } else {
      checkError(error, at);
    }
    replies.add(new Reply(true, 0, -1, cookie, error, offset, data));
    complete(cookie, sent, at);
  }

  private void chunk(int at) {
    need(16, "structured chunk header");
    int flags = Short.toUnsignedInt(b.getShort());
    int type = Short.toUnsignedInt(b.getShort());
    long cookie = b.getLong();
    long length = Integer.toUnsignedLong(b.getInt());
    need(length, "structured chunk payload");
    check(structured, "a structured chunk without structured replies negotiated, at byte " + at);
    check(
        (flags & ~Nbd.REPLY_FLAG_DONE) == 0,
        "reserved chunk flags 0x" + Integer.toHexString(flags) + " at byte " + at);
    List<Request> sent = sent(cookie, at);
    byte[] payload = new byte[(int) length];
    b.get(payload);
    ByteBuffer p = ByteBuffer.wrap(payload);
    long offset = -1;
    int error = 0;
    switch (type) {
      case Nbd.REPLY_TYPE_NONE ->
          check(
              length == 0 && (flags & Nbd.REPLY_FLAG_DONE) != 0,
              "NONE chunk with data or without DONE, at byte " + at);
      case Nbd.REPLY_TYPE_OFFSET_DATA -> {
        check(length >= 9, "OFFSET_DATA shorter than 9 bytes, at byte " + at);
        offset = p.getLong();
        int n = (int) length - 8;
        check(
            offset >= 0 && offset <= image.length - n,
            "OFFSET_DATA outside the image, at byte " + at);
        long o = offset;
        check(
            sent.stream()
                .anyMatch(
                    r ->
                        r.type() == NbdCommand.READ.wire
                            && o >= r.offset()
                            && o + n <= r.offset() + r.length()),
            "OFFSET_DATA outside every READ of cookie " + cookie + ", at byte " + at);
        check(
            Arrays.equals(payload, 8, 8 + n, image, (int) offset, (int) offset + n),
            "OFFSET_DATA bytes are not the image's at offset " + offset + ", at byte " + at);
        payload = Arrays.copyOfRange(payload, 8, 8 + n);
      }
      case Nbd.REPLY_TYPE_BLOCK_STATUS ->
          check(
              length >= 12 && (length - 4) % 8 == 0,
              "BLOCK_STATUS length " + length + " at byte " + at);
      case Nbd.REPLY_TYPE_ERROR, Nbd.REPLY_TYPE_ERROR_OFFSET -> {
        int fixed = type == Nbd.REPLY_TYPE_ERROR ? 6 : 14;
        check(length >= fixed, "error chunk shorter than " + fixed + " bytes, at byte " + at);
        error = p.getInt();
        checkError(error, at);
        int msg = Short.toUnsignedInt(p.getShort());
        check(
            msg == length - fixed && msg <= Nbd.MAX_STRING,
            "error message length " + msg + " in a chunk of " + length + " bytes, at byte " + at);
      }
      default -> throw fail(at, "structured chunk type " + type);
    }
    replies.add(new Reply(false, flags, type, cookie, error, offset, payload));
    if ((flags & Nbd.REPLY_FLAG_DONE) != 0) {
      complete(cookie, sent, at);
    }
  }

  private void checkError(int error, int at) {
    check(
        error == NbdError.EPERM.wire
            || error == NbdError.EIO.wire
            || error == NbdError.ENOMEM.wire
            || error == NbdError.EINVAL.wire
            || error == NbdError.EOVERFLOW.wire
            || error == NbdError.ESHUTDOWN.wire,
        "error value " + error + " at byte " + at);
  }

  private List<Request> sent(long cookie, int at) {
    List<Request> sent = requests.byCookie.get(cookie);
    if (sent == null) {
      throw fail(at, "a reply to cookie " + cookie + ", which no request carried");
    }
    return sent;
  }

  private void complete(long cookie, List<Request> sent, int at) {
    int n = completions.merge(cookie, 1, Integer::sum);
    check(
        n <= sent.size(),
        "cookie "
            + cookie
            + " answered "
            + n
            + " times for "
            + sent.size()
            + " requests, at byte "
            + at);
  }

  private void need(long n, String what) {
    if (b.remaining() < n) {
      throw fail(b.position(), what + ": " + n + " bytes needed, " + b.remaining() + " left");
    }
  }

  private void check(boolean ok, String what) {
    if (!ok) {
      throw fail(-1, what);
    }
  }

  private AssertionError fail(int at, String what) {
    int from = Math.max(0, (at < 0 ? b.position() : at) - 32);
    int to = Math.min(out.length, from + 96);
    return new AssertionError(
        "server output malformed: "
            + what
            + (at >= 0 ? " (at byte " + at + ")" : "")
            + "; output "
            + out.length
            + " bytes, ["
            + from
            + ", "
            + to
            + "): "
            + HexFormat.of().formatHex(out, from, to));
  }
}
