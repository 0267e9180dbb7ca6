package org.jverity.nbd;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A client byte stream for fuzzing, all drawn from one seed: a well-formed handshake (one of
 * several shapes) and a few requests, then a few mutations (bit flips, truncation, inserted,
 * duplicated or deleted bytes, and fields overwritten with huge lengths, random option codes,
 * random commands or flags). {@link #toString()} says what was done, so a failure can be read. Test
 * helper.
 */
final class FuzzCase {
  /** The handshakes a generated stream starts with. */
  enum Handshake {
    EXPORT_NAME,
    EXPORT_NAME_ZEROES,
    GO,
    STRUCTURED_GO,
    STRUCTURED_META_GO,
    INFO_LIST_GO
  }

  /** Request kinds a generated stream holds. */
  enum Kind {
    READ,
    READ_DF,
    CACHE,
    FLUSH,
    BLOCK_STATUS,
    BLOCK_STATUS_ONE,
    WRITE,
    TRIM,
    WRITE_ZEROES,
    UNKNOWN
  }

  /** One generated request; {@code cookie} is its index + 1. */
  record Req(Kind kind, long cookie, long offset, long length) {}

  final long seed;
  final Handshake handshake;
  final List<Req> requests;
  final boolean disc; // a DISC after the requests
  final byte[] wellFormed;
  final byte[] bytes; // after the mutations
  final List<String> mutations = new ArrayList<>();

  private FuzzCase(
      long seed,
      Handshake handshake,
      List<Req> requests,
      boolean disc,
      ClientStream s,
      int mutationCount,
      SplittableRandom rnd) {
    this.seed = seed;
    this.handshake = handshake;
    this.requests = requests;
    this.disc = disc;
    this.wellFormed = s.bytes();
    byte[] b = wellFormed;
    List<ClientStream.Place> places = s.places();
    // Field overwrites first: their places are those of the well-formed stream.
    for (int i = 0; i < mutationCount && !places.isEmpty(); i++) {
      if (rnd.nextInt(3) == 0) {
        b = setField(b, places.get(rnd.nextInt(places.size())), rnd);
      }
    }
    for (int i = 0; i < mutationCount; i++) {
      b = mutate(b, rnd);
    }
    this.bytes = b;
  }

  /** A well-formed stream (no mutations) when {@code mutations} is false. */
  static FuzzCase generate(long seed, long imageSize, boolean mutations) {
    SplittableRandom rnd = new SplittableRandom(seed);
    Handshake h = Handshake.values()[rnd.nextInt(Handshake.values().length)];
    ClientStream s = new ClientStream();
    s.clientFlags(
        h == Handshake.EXPORT_NAME_ZEROES
            ? Nbd.FLAG_FIXED_NEWSTYLE
            : Nbd.FLAG_FIXED_NEWSTYLE | Nbd.FLAG_NO_ZEROES);
    switch (h) {
      case EXPORT_NAME, EXPORT_NAME_ZEROES -> s.exportName("");
      case GO -> s.go("", Nbd.INFO_BLOCK_SIZE);
      case STRUCTURED_GO -> s.structuredReply().go("");
      case STRUCTURED_META_GO ->
          s.structuredReply()
              .metaContext(NbdOption.SET_META_CONTEXT.wire, "", Nbd.BASE_ALLOCATION)
              .go("", Nbd.INFO_NAME);
      case INFO_LIST_GO ->
          s.option(NbdOption.LIST.wire, new byte[0])
              .metaContext(NbdOption.LIST_META_CONTEXT.wire, "")
              .go(NbdOption.INFO.wire, "", Nbd.INFO_DESCRIPTION)
              .option(99, new byte[3])
              .go("");
    }
    int n = rnd.nextInt(1, 9);
    List<Req> reqs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Kind k = Kind.values()[rnd.nextInt(Kind.values().length)];
      long cookie = i + 1;
      Req r =
          switch (k) {
            case FLUSH -> new Req(k, cookie, 0, 0);
            case WRITE -> new Req(k, cookie, 4096L * rnd.nextInt(4), 512L * rnd.nextInt(1, 5));
            default -> range(k, cookie, imageSize, rnd);
          };
      reqs.add(r);
      switch (k) {
        case READ -> s.read(cookie, r.offset(), (int) r.length());
        case READ_DF ->
            s.request(Nbd.CMD_FLAG_DF, NbdCommand.READ.wire, cookie, r.offset(), r.length());
        case CACHE -> s.request(0, NbdCommand.CACHE.wire, cookie, r.offset(), r.length());
        case FLUSH -> s.request(0, NbdCommand.FLUSH.wire, cookie, 0, 0);
        case BLOCK_STATUS ->
            s.request(0, NbdCommand.BLOCK_STATUS.wire, cookie, r.offset(), r.length());
        case BLOCK_STATUS_ONE ->
            s.request(
                Nbd.CMD_FLAG_REQ_ONE, NbdCommand.BLOCK_STATUS.wire, cookie, r.offset(), r.length());
        case WRITE -> {
          byte[] payload = new byte[(int) r.length()];
          rnd.nextBytes(payload);
          s.write(cookie, r.offset(), payload);
        }
        case TRIM -> s.request(0, NbdCommand.TRIM.wire, cookie, r.offset(), r.length());
        case WRITE_ZEROES ->
            s.request(0, NbdCommand.WRITE_ZEROES.wire, cookie, r.offset(), r.length());
        case UNKNOWN -> s.request(0, rnd.nextInt(9, 1 << 16), cookie, r.offset(), r.length());
      }
    }
    boolean disc = rnd.nextBoolean();
    if (disc) {
      s.disc();
    }
    return new FuzzCase(seed, h, reqs, disc, s, mutations ? rnd.nextInt(1, 5) : 0, rnd);
  }

  /** Mostly inside the image, at block or odd alignment; sometimes empty, past the end or huge. */
  private static Req range(Kind k, long cookie, long size, SplittableRandom rnd) {
    int shape = rnd.nextInt(20);
    long offset;
    long length;
    if (shape == 0) {
      offset = rnd.nextLong(size);
      length = 0;
    } else if (shape == 1) {
      offset = size - rnd.nextLong(1, 4096);
      length = 8192;
    } else if (shape == 2) {
      offset = rnd.nextBoolean() ? size : -rnd.nextLong(1, 1L << 40);
      length = 4096;
    } else if (shape == 3) {
      offset = 0;
      length = 0xFFFFFFFFL;
    } else {
      boolean aligned = rnd.nextBoolean();
      length = aligned ? 4096L * rnd.nextInt(1, 33) : rnd.nextLong(1, 150_000);
      length = Math.min(length, size);
      offset = rnd.nextLong(size - length + 1);
      if (aligned) {
        offset -= offset % 4096;
      }
    }
    return new Req(k, cookie, offset, length);
  }

  private byte[] setField(byte[] b, ClientStream.Place p, SplittableRandom rnd) {
    long[] interesting = {
      0,
      1,
      0xFFFFFFFFL,
      0x7FFFFFFFL,
      0x80000000L,
      1L << 30,
      65_536,
      33_554_433,
      0xFFFFFFFFFFFFFFFFL,
      rnd.nextLong()
    };
    long v =
        switch (p.field()) {
          case OPTION_CODE -> rnd.nextBoolean() ? rnd.nextInt(0, 16) : rnd.nextInt();
          case COMMAND_TYPE -> rnd.nextBoolean() ? rnd.nextInt(0, 10) : rnd.nextInt(1 << 16);
          case COMMAND_FLAGS -> rnd.nextBoolean() ? 1L << rnd.nextInt(16) : rnd.nextInt(1 << 16);
          default -> interesting[rnd.nextInt(interesting.length)];
        };
    byte[] c = b.clone();
    ByteBuffer w = ByteBuffer.wrap(c);
    switch (p.size()) {
      case 2 -> w.putShort(p.at(), (short) v);
      case 4 -> w.putInt(p.at(), (int) v);
      default -> w.putLong(p.at(), v);
    }
    mutations.add(
        p.field()
            + "@"
            + p.at()
            + "=0x"
            + Long.toHexString(p.size() == 8 ? v : v & ((1L << (8 * p.size())) - 1)));
    return c;
  }

  private byte[] mutate(byte[] b, SplittableRandom rnd) {
    if (b.length == 0) {
      return b;
    }
    int at = rnd.nextInt(b.length);
    switch (rnd.nextInt(5)) {
      case 0 -> {
        int bit = rnd.nextInt(8);
        byte[] c = b.clone();
        c[at] ^= (byte) (1 << bit);
        mutations.add("flip@" + at + "." + bit);
        return c;
      }
      case 1 -> {
        mutations.add("truncate@" + at);
        return Arrays.copyOf(b, at);
      }
      case 2 -> {
        byte[] ins = new byte[rnd.nextInt(1, 9)];
        rnd.nextBytes(ins);
        mutations.add("insert@" + at + "+" + ins.length);
        return splice(b, at, 0, ins);
      }
      case 3 -> {
        int len = Math.min(b.length - at, rnd.nextInt(1, 64));
        mutations.add("duplicate@" + at + "+" + len);
        return splice(b, at, 0, Arrays.copyOfRange(b, at, at + len));
      }
      default -> {
        int len = Math.min(b.length - at, rnd.nextInt(1, 16));
        mutations.add("delete@" + at + "+" + len);
        return splice(b, at, len, new byte[0]);
      }
    }
  }

  private static byte[] splice(byte[] b, int at, int remove, byte[] insert) {
    byte[] c = new byte[b.length - remove + insert.length];
    System.arraycopy(b, 0, c, 0, at);
    System.arraycopy(insert, 0, c, at, insert.length);
    System.arraycopy(b, at + remove, c, at + insert.length, b.length - at - remove);
    return c;
  }

  @Override
  public String toString() {
    return "FuzzCase[seed="
        + seed
        + ", "
        + handshake
        + ", "
        + requests
        + (disc ? ", DISC" : "")
        + ", mutations="
        + mutations
        + ", "
        + bytes.length
        + " bytes]";
  }
}
