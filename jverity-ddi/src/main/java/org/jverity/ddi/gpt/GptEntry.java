package org.jverity.ddi.gpt;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.UUID;

/**
 * One partition entry: its type, its own GUID, its sectors (both ends inclusive), its attribute
 * bits and its name (up to 36 UTF-16 code units). Immutable.
 *
 * @param index the entry's place in the array, from 0 (partition number {@code index + 1})
 */
public record GptEntry(
    int index, UUID type, UUID guid, long firstLba, long lastLba, long attributes, String name) {

  /** The bytes of an entry as UEFI defines it; a table's entries may be larger (zero-filled). */
  public static final int SIZE = 128;

  /** UEFI: the platform needs this partition to work. */
  public static final long REQUIRED = 1L;

  /** The Discoverable Partitions Specification's grow-file-system bit. */
  public static final long GROW_FS = 1L << 59;

  /** The specification's read-only bit, recommended for verity and signature partitions. */
  public static final long READ_ONLY = 1L << 60;

  /** The specification's no-auto bit: not mounted automatically. */
  public static final long NO_AUTO = 1L << 63;

  /** The UTF-16 code units the name field holds. */
  public static final int NAME_UNITS = 36;

  /** The type of an entry that holds no partition. */
  public static final UUID UNUSED = new UUID(0, 0);

  public GptEntry {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(guid, "guid");
    Objects.requireNonNull(name, "name");
    if (name.length() > NAME_UNITS) {
      throw new IllegalArgumentException(
          "partition name: "
              + name.length()
              + " UTF-16 units (expected: at most "
              + NAME_UNITS
              + ")");
    }
  }

  /** Whether the entry holds no partition (an all-zero type). */
  public boolean unused() {
    return type.equals(UNUSED);
  }

  /** The partition's number as tools show it ({@code /dev/sda3}, {@code sgdisk -i 3}). */
  public int number() {
    return index + 1;
  }

  /** Sectors the partition spans. */
  public long sectors() {
    return lastLba - firstLba + 1;
  }

  /** Byte offset of the partition's first sector. */
  public long offset(int sectorSize) {
    return firstLba * sectorSize;
  }

  /** Bytes the partition spans. */
  public long size(int sectorSize) {
    return sectors() * sectorSize;
  }

  public boolean has(long attribute) {
    return (attributes & attribute) == attribute;
  }

  /** Writes the entry's 128 bytes at {@code offset} of {@code b}. */
  void encode(byte[] b, int offset) {
    Guids.encode(type, b, offset);
    Guids.encode(guid, b, offset + 16);
    ByteBuffer le = ByteBuffer.wrap(b, offset + 32, SIZE - 32).order(ByteOrder.LITTLE_ENDIAN);
    le.putLong(firstLba).putLong(lastLba).putLong(attributes);
    le.put(name.getBytes(StandardCharsets.UTF_16LE));
  }

  /** The entry in {@code b} at {@code offset}; its bounds are the table's to check. */
  static GptEntry decode(int index, byte[] b, int offset) {
    ByteBuffer le = ByteBuffer.wrap(b, offset + 32, SIZE - 32).order(ByteOrder.LITTLE_ENDIAN);
    long first = le.getLong();
    long last = le.getLong();
    long attributes = le.getLong();
    int units = 0;
    while (units < NAME_UNITS && (b[offset + 56 + 2 * units] | b[offset + 57 + 2 * units]) != 0) {
      units++;
    }
    String name = new String(b, offset + 56, 2 * units, StandardCharsets.UTF_16LE);
    return new GptEntry(
        index,
        Guids.decode(b, offset),
        Guids.decode(b, offset + 16),
        first,
        last,
        attributes,
        name);
  }
}
