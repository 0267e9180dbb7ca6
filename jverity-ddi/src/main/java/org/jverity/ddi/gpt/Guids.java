package org.jverity.ddi.gpt;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.UUID;

/**
 * GUIDs as the GPT stores them: the first three fields little-endian, the last eight bytes as
 * written, so {@code 4f68bce3-e8cd-4db1-96e7-fbcaf984b709} is stored {@code e3 bc 68 4f cd e8 b1 4d
 * 96 e7 ...}. Stateless.
 */
public final class Guids {
  /** Bytes of a GUID on disk. */
  public static final int SIZE = 16;

  private Guids() {}

  /** The GUID at {@code offset} of {@code b}. */
  public static UUID decode(byte[] b, int offset) {
    ByteBuffer le = ByteBuffer.wrap(b, offset, SIZE).order(ByteOrder.LITTLE_ENDIAN);
    long timeLow = le.getInt() & 0xffffffffL;
    long timeMid = le.getShort() & 0xffffL;
    long timeHigh = le.getShort() & 0xffffL;
    long high = (timeLow << 32) | (timeMid << 16) | timeHigh;
    long low = ByteBuffer.wrap(b, offset + 8, 8).order(ByteOrder.BIG_ENDIAN).getLong();
    return new UUID(high, low);
  }

  /** Writes {@code guid} at {@code offset} of {@code b}. */
  public static void encode(UUID guid, byte[] b, int offset) {
    long high = guid.getMostSignificantBits();
    ByteBuffer le = ByteBuffer.wrap(b, offset, SIZE).order(ByteOrder.LITTLE_ENDIAN);
    le.putInt((int) (high >>> 32)).putShort((short) (high >>> 16)).putShort((short) high);
    ByteBuffer.wrap(b, offset + 8, 8)
        .order(ByteOrder.BIG_ENDIAN)
        .putLong(guid.getLeastSignificantBits());
  }

  /**
   * The UUID whose text is the hex of {@code bytes[offset..offset+16)}, as systemd reads 128 bits
   * of a root hash as a partition UUID ({@code sd_id128} is big-endian).
   */
  public static UUID ofBytes(byte[] bytes, int offset) {
    ByteBuffer be = ByteBuffer.wrap(bytes, offset, SIZE).order(ByteOrder.BIG_ENDIAN);
    return new UUID(be.getLong(), be.getLong());
  }
}
