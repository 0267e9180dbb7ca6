package org.jverity.nbd;

/**
 * The handshake's options, with their wire codes. Open, as Netty's {@code DnsOpCode}: a code this
 * server does not know is {@link #UNKNOWN} (answered NBD_REP_ERR_UNSUP, the handshake goes on), and
 * replies echo the client's code, never this type's.
 */
enum NbdOption {
  EXPORT_NAME(1),
  ABORT(2),
  LIST(3),
  STARTTLS(5),
  INFO(6),
  GO(7),
  STRUCTURED_REPLY(8),
  LIST_META_CONTEXT(9),
  SET_META_CONTEXT(10),
  /** Any other code (PEEK_EXPORT, EXTENDED_HEADERS, ...): not supported. */
  UNKNOWN(-1);

  /** The code on the wire; -1 for {@link #UNKNOWN}, which stands for many. */
  final int wire;

  NbdOption(int wire) {
    this.wire = wire;
  }

  /** The option of a wire code; {@link #UNKNOWN} for one this server does not know. */
  static NbdOption fromWire(int code) {
    for (NbdOption o : values()) {
      if (o.wire == code && o != UNKNOWN) {
        return o;
      }
    }
    return UNKNOWN;
  }
}
