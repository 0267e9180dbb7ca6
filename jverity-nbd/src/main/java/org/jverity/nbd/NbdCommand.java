package org.jverity.nbd;

/** The transmission-phase commands, each with its wire code and the command flags it accepts. */
enum NbdCommand {
  READ(0, Nbd.CMD_FLAG_FUA | Nbd.CMD_FLAG_DF),
  WRITE(1, Nbd.CMD_FLAG_FUA),
  DISC(2, 0),
  FLUSH(3, 0),
  TRIM(4, Nbd.CMD_FLAG_FUA),
  CACHE(5, 0),
  WRITE_ZEROES(6, Nbd.CMD_FLAG_FUA | 2 | 16),
  BLOCK_STATUS(7, Nbd.CMD_FLAG_REQ_ONE);

  final int wire;
  final int flags; // the command flags valid with this command

  NbdCommand(int wire, int flags) {
    this.wire = wire;
    this.flags = flags;
  }

  /** The command of a wire code, or null for one this server does not know. */
  static NbdCommand fromWire(int type) {
    for (NbdCommand c : values()) {
      if (c.wire == type) {
        return c;
      }
    }
    return null;
  }
}
