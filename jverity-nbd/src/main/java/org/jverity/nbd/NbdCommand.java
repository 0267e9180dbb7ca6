package org.jverity.nbd;

import java.util.Locale;

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

  /** By wire code (0..7): every request looks its command up. */
  private static final NbdCommand[] BY_WIRE = new NbdCommand[8];

  static {
    for (NbdCommand c : values()) {
      BY_WIRE[c.wire] = c;
    }
  }

  final int wire;
  final int flags; // the command flags valid with this command

  /** The name in lower case, for messages and events ("block_status"). */
  final String label;

  NbdCommand(int wire, int flags) {
    this.wire = wire;
    this.flags = flags;
    this.label = name().toLowerCase(Locale.ROOT);
  }

  /** The command of a wire code, or null for one this server does not know. */
  static NbdCommand fromWire(int type) {
    return type >= 0 && type < BY_WIRE.length ? BY_WIRE[type] : null;
  }
}
