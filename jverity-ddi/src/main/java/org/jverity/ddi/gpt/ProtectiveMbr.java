package org.jverity.ddi.gpt;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The protective MBR in sector 0: one partition of type 0xee over the whole disk (or as much of it
 * as 32 bits of sectors count), so that MBR-only tools see the disk as in use. Stateless.
 */
final class ProtectiveMbr {
  /** The MBR partition type of a GPT disk. */
  static final int GPT_PROTECTIVE = 0xee;

  private ProtectiveMbr() {}

  /** Sector 0 of a disk of {@code sectors} sectors of {@code sectorSize} bytes. */
  static byte[] encode(int sectorSize, long sectors) {
    byte[] b = new byte[sectorSize];
    ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    int p = 446;
    b[p] = 0; // not bootable
    b[p + 1] = 0x00; // CHS of LBA 1: head 0, sector 2, cylinder 0
    b[p + 2] = 0x02;
    b[p + 3] = 0x00;
    b[p + 4] = (byte) GPT_PROTECTIVE;
    b[p + 5] = (byte) 0xff; // CHS end: not representable
    b[p + 6] = (byte) 0xff;
    b[p + 7] = (byte) 0xff;
    le.putInt(p + 8, 1);
    le.putInt(p + 12, (int) Math.min(sectors - 1, 0xffffffffL));
    b[510] = 0x55;
    b[511] = (byte) 0xaa;
    return b;
  }
}
