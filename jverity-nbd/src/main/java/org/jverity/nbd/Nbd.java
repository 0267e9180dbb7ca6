package org.jverity.nbd;

/**
 * The protocol's numbers (NetworkBlockDevice/nbd {@code doc/proto.md}): magics, handshake flags,
 * option reply codes, info types, transmission flags, chunk types. Commands, options and errors
 * have their own types, which own their codes ({@link NbdCommand}, {@link NbdOption}, {@link
 * NbdError}).
 */
final class Nbd {
  private Nbd() {}

  static final long NBDMAGIC = 0x4e42444d41474943L; // "NBDMAGIC"
  static final long IHAVEOPT = 0x49484156454F5054L; // "IHAVEOPT": the newstyle and option magic
  static final long OPTION_REPLY_MAGIC = 0x0003e889045565a9L;
  static final int REQUEST_MAGIC = 0x25609513;
  static final int SIMPLE_REPLY_MAGIC = 0x67446698;
  static final int STRUCTURED_REPLY_MAGIC = 0x668e33ef;

  // Handshake flags (server) and client flags.
  static final int FLAG_FIXED_NEWSTYLE = 1;
  static final int FLAG_NO_ZEROES = 2;
  static final int CLIENT_FLAGS_KNOWN = FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES;

  // Option replies; errors have bit 31 set.
  static final int REP_ACK = 1;
  static final int REP_SERVER = 2;
  static final int REP_INFO = 3;
  static final int REP_META_CONTEXT = 4;
  static final int REP_ERR_UNSUP = 0x80000001;
  static final int REP_ERR_POLICY = 0x80000002;
  static final int REP_ERR_INVALID = 0x80000003;
  static final int REP_ERR_TLS_REQD = 0x80000005;
  static final int REP_ERR_UNKNOWN = 0x80000006;
  static final int REP_ERR_SHUTDOWN = 0x80000007;
  static final int REP_ERR_TOO_BIG = 0x80000009;

  // Info types in NBD_REP_INFO.
  static final int INFO_EXPORT = 0;
  static final int INFO_NAME = 1;
  static final int INFO_DESCRIPTION = 2;
  static final int INFO_BLOCK_SIZE = 3;

  // Transmission flags.
  static final int TF_HAS_FLAGS = 1;
  static final int TF_READ_ONLY = 1 << 1;
  static final int TF_SEND_FLUSH = 1 << 2;
  static final int TF_SEND_DF = 1 << 7;
  static final int TF_CAN_MULTI_CONN = 1 << 8;
  static final int TF_SEND_CACHE = 1 << 10;

  // Command flags.
  static final int CMD_FLAG_FUA = 1;
  static final int CMD_FLAG_DF = 1 << 2;
  static final int CMD_FLAG_REQ_ONE = 1 << 3;

  // Structured reply chunks.
  static final int REPLY_FLAG_DONE = 1;
  static final int REPLY_TYPE_NONE = 0;
  static final int REPLY_TYPE_OFFSET_DATA = 1;
  static final int REPLY_TYPE_OFFSET_HOLE = 2;
  static final int REPLY_TYPE_BLOCK_STATUS = 5;
  static final int REPLY_TYPE_ERROR = 0x8001;
  static final int REPLY_TYPE_ERROR_OFFSET = 0x8002;

  // base:allocation
  static final String BASE_ALLOCATION = "base:allocation";

  /**
   * The id {@code base:allocation} gets when a client selects it (the only context: any id would
   * do).
   */
  static final int BASE_ALLOCATION_ID = 1;

  static final int STATE_HOLE = 1;
  static final int STATE_ZERO = 2;

  /** Strings (names, messages) may be at most this long, in bytes. */
  static final int MAX_STRING = 4096;
}
