package org.jverity.ddi.gpt;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import java.util.zip.CRC32;

/**
 * A GPT header, primary or backup: where it is, where its twin is, the usable sectors, the disk's
 * GUID and the entry array's place, count, entry size and CRC-32. Immutable.
 */
public record GptHeader(
    long myLba,
    long alternateLba,
    long firstUsableLba,
    long lastUsableLba,
    UUID diskGuid,
    long entriesLba,
    int entryCount,
    int entrySize,
    int entriesCrc) {

  /** "EFI PART". */
  static final byte[] SIGNATURE = "EFI PART".getBytes(StandardCharsets.US_ASCII);

  /** Revision 1.0, the only one there is. */
  static final int REVISION = 0x00010000;

  /** The header's bytes as UEFI 2.x defines them; the rest of its sector is zero. */
  public static final int SIZE = 92;

  /**
   * The largest entry array read: 1 MiB, 8192 entries of 128 bytes (writers use 128). A hostile
   * count times size is refused before anything is allocated for it.
   */
  public static final int MAX_ENTRIES_BYTES = 1 << 20;

  /** Whether {@code sector} starts with the GPT signature. */
  static boolean signed(byte[] sector, int offset) {
    return Arrays.equals(sector, offset, offset + 8, SIGNATURE, 0, 8);
  }

  /** Bytes of the entry array. */
  public long entriesBytes() {
    return (long) entryCount * entrySize;
  }

  /** Sectors of the entry array. */
  public long entriesSectors(int sectorSize) {
    return (entriesBytes() + sectorSize - 1) / sectorSize;
  }

  /** The header's sector, its CRC computed. */
  byte[] encode(int sectorSize) {
    byte[] b = new byte[sectorSize];
    ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    le.put(SIGNATURE).putInt(REVISION).putInt(SIZE).putInt(0).putInt(0);
    le.putLong(myLba).putLong(alternateLba).putLong(firstUsableLba).putLong(lastUsableLba);
    Guids.encode(diskGuid, b, 56);
    le.position(72);
    le.putLong(entriesLba).putInt(entryCount).putInt(entrySize).putInt(entriesCrc);
    le.putInt(16, crc(b, 0, SIZE));
    return b;
  }

  /**
   * The header in {@code sector}, its own fields checked (signature, revision, size, CRC, entry
   * size and count); where it points is the table's to check against the disk.
   *
   * @param which "primary GPT header" or "backup GPT header", for messages
   */
  static GptHeader decode(String which, byte[] sector) throws GptFormatException {
    if (!signed(sector, 0)) {
      throw new GptFormatException(which + ": no 'EFI PART' signature");
    }
    ByteBuffer le = ByteBuffer.wrap(sector).order(ByteOrder.LITTLE_ENDIAN);
    int revision = le.getInt(8);
    if (revision != REVISION) {
      throw new GptFormatException(
          which + ": revision 0x" + Integer.toHexString(revision) + " (expected: 0x10000)");
    }
    int headerSize = le.getInt(12);
    if (headerSize < SIZE || headerSize > sector.length) {
      throw new GptFormatException(
          which
              + ": header size "
              + Integer.toUnsignedString(headerSize)
              + " (expected: "
              + SIZE
              + " to the sector size "
              + sector.length
              + ")");
    }
    int stored = le.getInt(16);
    byte[] zeroed = Arrays.copyOf(sector, headerSize);
    Arrays.fill(zeroed, 16, 20, (byte) 0);
    int computed = crc(zeroed, 0, headerSize);
    if (stored != computed) {
      throw new GptFormatException(
          which + ": header CRC-32 " + hex(stored) + " (expected: " + hex(computed) + ")");
    }
    int entryCount = le.getInt(80);
    int entrySize = le.getInt(84);
    if (entrySize < GptEntry.SIZE || Integer.bitCount(entrySize) != 1) {
      throw new GptFormatException(
          which
              + ": entry size "
              + Integer.toUnsignedString(entrySize)
              + " (expected: 128 times a power of 2)");
    }
    long arrayBytes = Integer.toUnsignedLong(entryCount) * entrySize;
    if (entryCount == 0 || arrayBytes > MAX_ENTRIES_BYTES) {
      throw new GptFormatException(
          which
              + ": "
              + Integer.toUnsignedString(entryCount)
              + " entries of "
              + entrySize
              + " bytes (expected: 1 to "
              + MAX_ENTRIES_BYTES
              + " bytes of entries)");
    }
    return new GptHeader(
        le.getLong(24),
        le.getLong(32),
        le.getLong(40),
        le.getLong(48),
        Guids.decode(sector, 56),
        le.getLong(72),
        entryCount,
        entrySize,
        le.getInt(88));
  }

  static int crc(byte[] b, int offset, int length) {
    CRC32 crc = new CRC32();
    crc.update(b, offset, length);
    return (int) crc.getValue();
  }

  static String hex(int crc) {
    return String.format("0x%08x", crc);
  }
}
