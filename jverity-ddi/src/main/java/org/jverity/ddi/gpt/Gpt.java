package org.jverity.ddi.gpt;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jverity.io.BlockDevice;
import org.jverity.io.WritableDevice;

/**
 * A disk's GUID Partition Table as read from an image: its sector size (512 or 4096, found by where
 * the signature is, as systemd-dissect probes), the primary header, the partitions in use, and what
 * is wrong with the parts a reader can do without (the backup, the protective MBR). Everything a
 * reader must trust is checked on the way in, and refused with one line: the header's and the
 * entries' CRC-32s, the entry array's size before it is allocated, every partition inside the
 * usable sectors of an image that really has them, no two partitions overlapping. Immutable.
 *
 * @param sectorSize the logical sector size the table was written for
 * @param sectors the image's whole sectors
 * @param header the primary header
 * @param partitions the entries in use, by index
 * @param warnings what a reader may ignore but a user should hear (a missing or stale backup, no
 *     protective MBR), one line each
 */
public record Gpt(
    int sectorSize,
    long sectors,
    GptHeader header,
    List<GptEntry> partitions,
    List<String> warnings) {

  /** The entries a writer puts in the array (UEFI's minimum array is 16 KiB). */
  public static final int WRITTEN_ENTRIES = 128;

  /** The sector sizes a DDI may have. */
  public static final List<Integer> SECTOR_SIZES = List.of(512, 4096);

  public Gpt {
    partitions = List.copyOf(partitions);
    warnings = List.copyOf(warnings);
  }

  /** The image's bytes the table describes. */
  public long size() {
    return sectors * sectorSize;
  }

  /** The first sector a partition may use, for the array this writer writes. */
  public static long firstUsableLba(int sectorSize) {
    return 2 + arraySectors(sectorSize);
  }

  /** The last sector a partition may use on a disk of {@code sectors}. */
  public static long lastUsableLba(int sectorSize, long sectors) {
    return sectors - 2 - arraySectors(sectorSize);
  }

  private static long arraySectors(int sectorSize) {
    return (WRITTEN_ENTRIES * GptEntry.SIZE + sectorSize - 1) / sectorSize;
  }

  /**
   * Reads and checks the table of {@code disk}.
   *
   * @throws GptFormatException when there is none, or it cannot be trusted
   */
  public static Gpt read(BlockDevice disk) throws IOException {
    String what = disk.description();
    long size = disk.size();
    int sectorSize = probeSectorSize(disk, size);
    long sectors = size / sectorSize;
    GptHeader h = GptHeader.decode("primary GPT header", read(disk, sectorSize, sectorSize));
    if (h.myLba() != 1) {
      throw new GptFormatException(
          "primary GPT header: its own LBA " + h.myLba() + " (expected: 1)");
    }
    if (h.firstUsableLba() < 2 || h.firstUsableLba() > h.lastUsableLba()) {
      throw new GptFormatException(
          "primary GPT header: usable sectors "
              + h.firstUsableLba()
              + ".."
              + h.lastUsableLba()
              + " (expected: a range from LBA 2 on)");
    }
    long entriesSectors = h.entriesSectors(sectorSize);
    if (h.entriesLba() < 2 || h.entriesLba() > h.firstUsableLba() - entriesSectors) {
      throw new GptFormatException(
          "primary GPT header: entries at LBA "
              + h.entriesLba()
              + ", "
              + entriesSectors
              + " sectors (expected: between LBA 2 and the first usable LBA "
              + h.firstUsableLba()
              + ")");
    }
    long lastNeeded = Math.max(h.lastUsableLba(), h.alternateLba());
    if (lastNeeded >= sectors) {
      throw new GptFormatException(
          what
              + ": "
              + sectors
              + " sectors of "
              + sectorSize
              + " bytes (expected: at least "
              + (lastNeeded + 1)
              + ", as its GPT says: the image is truncated)");
    }
    byte[] array = read(disk, h.entriesLba() * sectorSize, (int) h.entriesBytes());
    int crc = GptHeader.crc(array, 0, array.length);
    if (crc != h.entriesCrc()) {
      throw new GptFormatException(
          "primary GPT entries: CRC-32 "
              + GptHeader.hex(crc)
              + " (expected: "
              + GptHeader.hex(h.entriesCrc())
              + ", as the header says)");
    }
    List<GptEntry> used = new ArrayList<>();
    for (int i = 0; i < h.entryCount(); i++) {
      GptEntry e = GptEntry.decode(i, array, i * h.entrySize());
      if (!e.unused()) {
        checkBounds(e, h);
        used.add(e);
      }
    }
    checkNoOverlap(used);
    List<String> warnings = new ArrayList<>();
    protectiveMbrWarning(disk, sectors).ifPresent(warnings::add);
    backupWarning(disk, sectorSize, sectors, h).ifPresent(warnings::add);
    return new Gpt(sectorSize, sectors, h, used, warnings);
  }

  /** 512 when the signature is in the second 512 bytes, else 4096 when it starts at 4096. */
  private static int probeSectorSize(BlockDevice disk, long size) throws IOException {
    for (int s : SECTOR_SIZES) {
      if (size >= 2L * s && GptHeader.signed(read(disk, s, GptHeader.SIGNATURE.length), 0)) {
        return s;
      }
    }
    throw new GptFormatException(
        disk.description()
            + ": no GPT ('EFI PART' at byte 512 or 4096; "
            + (size < 1024 ? size + " bytes" : "not a partitioned disk image")
            + ")");
  }

  private static void checkBounds(GptEntry e, GptHeader h) throws GptFormatException {
    if (e.firstLba() > e.lastLba()
        || e.firstLba() < h.firstUsableLba()
        || e.lastLba() > h.lastUsableLba()) {
      throw new GptFormatException(
          "partition "
              + e.number()
              + ": sectors "
              + e.firstLba()
              + ".."
              + e.lastLba()
              + " (expected: inside the usable sectors "
              + h.firstUsableLba()
              + ".."
              + h.lastUsableLba()
              + ")");
    }
  }

  private static void checkNoOverlap(List<GptEntry> used) throws GptFormatException {
    List<GptEntry> byStart = new ArrayList<>(used);
    byStart.sort(Comparator.comparingLong(GptEntry::firstLba));
    for (int i = 1; i < byStart.size(); i++) {
      GptEntry a = byStart.get(i - 1);
      GptEntry b = byStart.get(i);
      if (b.firstLba() <= a.lastLba()) {
        throw new GptFormatException(
            "partition "
                + b.number()
                + ": sectors "
                + b.firstLba()
                + ".."
                + b.lastLba()
                + " overlap partition "
                + a.number()
                + "'s "
                + a.firstLba()
                + ".."
                + a.lastLba()
                + " (expected: disjoint partitions)");
      }
    }
  }

  private static Optional<String> protectiveMbrWarning(BlockDevice disk, long sectors)
      throws IOException {
    byte[] mbr = read(disk, 0, 512);
    boolean signed = (mbr[510] & 0xff) == 0x55 && (mbr[511] & 0xff) == 0xaa;
    boolean protective = false;
    for (int p = 446; p < 510; p += 16) {
      protective |= (mbr[p + 4] & 0xff) == ProtectiveMbr.GPT_PROTECTIVE;
    }
    return signed && protective
        ? Optional.empty()
        : Optional.of("no protective MBR (a partition of type 0xee at sector 0)");
  }

  /** What is wrong with the backup header and entries, if anything: a reader can do without. */
  private static Optional<String> backupWarning(
      BlockDevice disk, int sectorSize, long sectors, GptHeader primary) throws IOException {
    if (primary.alternateLba() != sectors - 1) {
      return Optional.of(
          "backup GPT header at LBA "
              + primary.alternateLba()
              + ", not at the last sector "
              + (sectors - 1)
              + " (the image grew, or was cut and padded)");
    }
    GptHeader b;
    try {
      b =
          GptHeader.decode(
              "backup GPT header", read(disk, primary.alternateLba() * sectorSize, sectorSize));
    } catch (GptFormatException e) {
      return Optional.of(e.getMessage());
    }
    if (b.myLba() != primary.alternateLba()
        || b.alternateLba() != 1
        || !b.diskGuid().equals(primary.diskGuid())
        || b.entriesCrc() != primary.entriesCrc()
        || b.entryCount() != primary.entryCount()
        || b.entrySize() != primary.entrySize()) {
      return Optional.of("backup GPT header: does not match the primary one");
    }
    long sectorsOfArray = b.entriesSectors(sectorSize);
    if (b.entriesLba() <= primary.lastUsableLba() || b.entriesLba() + sectorsOfArray > b.myLba()) {
      return Optional.of(
          "backup GPT entries: at LBA "
              + b.entriesLba()
              + " (expected: after the last usable sector, before the backup header)");
    }
    byte[] array = read(disk, b.entriesLba() * sectorSize, (int) b.entriesBytes());
    if (GptHeader.crc(array, 0, array.length) != b.entriesCrc()) {
      return Optional.of("backup GPT entries: CRC-32 mismatch");
    }
    return Optional.empty();
  }

  private static byte[] read(BlockDevice disk, long offset, int length) throws IOException {
    byte[] b = new byte[length];
    try {
      disk.readFully(offset, b, 0, length);
    } catch (EOFException e) {
      throw new GptFormatException(
          disk.description()
              + ": "
              + disk.size()
              + " bytes, ends before byte "
              + (offset + length)
              + " of its GPT (the image is truncated)");
    }
    return b;
  }

  /**
   * Writes a protective MBR, the primary header and entries, the backup entries and header on a
   * disk of {@code sectors} sectors; the partitions' contents are the caller's.
   *
   * @param partitions the entries in use; their indexes place them in the array
   */
  public static Gpt write(
      WritableDevice disk, int sectorSize, long sectors, UUID diskGuid, List<GptEntry> partitions)
      throws IOException {
    if (!SECTOR_SIZES.contains(sectorSize)) {
      throw new IllegalArgumentException("sector size: " + sectorSize + " (expected: 512 or 4096)");
    }
    byte[] array = new byte[(int) arraySectors(sectorSize) * sectorSize];
    for (GptEntry e : partitions) {
      if (e.index() < 0 || e.index() >= WRITTEN_ENTRIES) {
        throw new IllegalArgumentException("partition index: " + e.index());
      }
      e.encode(array, e.index() * GptEntry.SIZE);
    }
    int entriesCrc = GptHeader.crc(array, 0, WRITTEN_ENTRIES * GptEntry.SIZE);
    long first = firstUsableLba(sectorSize);
    long last = lastUsableLba(sectorSize, sectors);
    GptHeader primary =
        new GptHeader(
            1, sectors - 1, first, last, diskGuid, 2, WRITTEN_ENTRIES, GptEntry.SIZE, entriesCrc);
    GptHeader backup =
        new GptHeader(
            sectors - 1,
            1,
            first,
            last,
            diskGuid,
            last + 1,
            WRITTEN_ENTRIES,
            GptEntry.SIZE,
            entriesCrc);
    for (GptEntry e : partitions) {
      checkBounds(
          new GptEntry(e.index(), e.type(), e.guid(), e.firstLba(), e.lastLba(), 0, ""), primary);
    }
    disk.writeFully(0, ByteBuffer.wrap(ProtectiveMbr.encode(sectorSize, sectors)));
    disk.writeFully(sectorSize, ByteBuffer.wrap(primary.encode(sectorSize)));
    disk.writeFully(2L * sectorSize, ByteBuffer.wrap(array));
    disk.writeFully((last + 1) * sectorSize, ByteBuffer.wrap(array));
    disk.writeFully((sectors - 1) * sectorSize, ByteBuffer.wrap(backup.encode(sectorSize)));
    return new Gpt(sectorSize, sectors, primary, partitions, List.of());
  }
}
