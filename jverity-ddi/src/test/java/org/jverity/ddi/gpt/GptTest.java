package org.jverity.ddi.gpt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.io.FileDevice;
import org.jverity.io.MemoryDevice;

/**
 * Tables a reader must not trust, each refused in one line before anything is allocated for it; and
 * what a reader can do without (the backup, the MBR), reported as warnings.
 */
class GptTest {
  private static final UUID TYPE = UUID.fromString("0fc63daf-8483-4772-8e79-3d69d8477de4");
  private static final int SECTORS = 4096; // 2 MiB of 512-byte sectors

  @TempDir Path dir;

  /** A valid table with two partitions, as bytes. */
  private byte[] disk(List<GptEntry> entries) throws IOException {
    Path f = dir.resolve("disk-" + System.nanoTime());
    try (FileDevice d = FileDevice.openWrite(f)) {
      Gpt.write(d, 512, SECTORS, UUID.randomUUID(), entries);
    }
    return Files.readAllBytes(f);
  }

  private static List<GptEntry> two() {
    return List.of(
        new GptEntry(0, TYPE, UUID.randomUUID(), 2048, 2559, 0, "a"),
        new GptEntry(1, TYPE, UUID.randomUUID(), 2560, 3071, 0, "b"));
  }

  private static Gpt read(byte[] disk) throws IOException {
    return Gpt.read(new MemoryDevice("disk.raw", disk));
  }

  /** Rewrites the primary header with {@code change} applied, its CRC recomputed. */
  private static void patchHeader(byte[] disk, java.util.function.Consumer<ByteBuffer> change) {
    ByteBuffer le = ByteBuffer.wrap(disk, 512, 512).slice().order(ByteOrder.LITTLE_ENDIAN);
    change.accept(le);
    le.putInt(16, 0);
    le.putInt(16, GptHeader.crc(disk, 512, GptHeader.SIZE));
  }

  /** Rewrites the primary entries with {@code change} applied, both CRCs recomputed. */
  private static void patchEntries(byte[] disk, java.util.function.Consumer<ByteBuffer> change) {
    ByteBuffer le = ByteBuffer.wrap(disk, 1024, 128 * 128).slice().order(ByteOrder.LITTLE_ENDIAN);
    change.accept(le);
    int crc = GptHeader.crc(disk, 1024, 128 * 128);
    patchHeader(disk, h -> h.putInt(88, crc));
  }

  @Test
  void readsWhatItWrote() throws IOException {
    List<GptEntry> entries = two();
    Gpt gpt = read(disk(entries));
    assertThat(gpt.sectorSize()).isEqualTo(512);
    assertThat(gpt.partitions()).isEqualTo(entries);
    assertThat(gpt.warnings()).isEmpty();
    assertThat(gpt.header().firstUsableLba()).isEqualTo(34);
    assertThat(gpt.header().lastUsableLba()).isEqualTo(SECTORS - 34);
  }

  @Test
  void aHeaderCrcMismatchIsRefused() throws IOException {
    byte[] d = disk(two());
    d[512 + 40] ^= 1; // first usable LBA, CRC left as it was
    assertThatThrownBy(() -> read(d))
        .isInstanceOf(GptFormatException.class)
        .hasMessageStartingWith("primary GPT header: header CRC-32 0x")
        .hasMessageContaining("(expected: 0x");
  }

  @Test
  void anEntriesCrcMismatchIsRefused() throws IOException {
    byte[] d = disk(two());
    d[1024 + 40] ^= 1;
    assertThatThrownBy(() -> read(d))
        .isInstanceOf(GptFormatException.class)
        .hasMessageStartingWith("primary GPT entries: CRC-32 0x");
  }

  @Test
  void aHostileEntryCountIsRefusedBeforeAnythingIsAllocated() throws IOException {
    byte[] d = disk(two());
    patchHeader(d, h -> h.putInt(80, -1)); // 4294967295 entries
    assertThatThrownBy(() -> read(d))
        .isInstanceOf(GptFormatException.class)
        .hasMessage(
            "primary GPT header: 4294967295 entries of 128 bytes (expected: 1 to 1048576 bytes of"
                + " entries)");
    byte[] e = disk(two());
    patchHeader(e, h -> h.putInt(84, 100));
    assertThatThrownBy(() -> read(e))
        .hasMessage("primary GPT header: entry size 100 (expected: 128 times a power of 2)");
    byte[] f = disk(two());
    patchHeader(f, h -> h.putInt(80, 8192).putInt(84, 256)); // 2 MiB of entries
    assertThatThrownBy(() -> read(f)).hasMessageContaining("8192 entries of 256 bytes");
  }

  @Test
  void anEntryArrayThatRunsIntoTheUsableSectorsIsRefused() throws IOException {
    byte[] d = disk(two());
    patchHeader(d, h -> h.putInt(80, 4096)); // 512 KiB of entries from LBA 2: past LBA 34
    assertThatThrownBy(() -> read(d))
        .hasMessage(
            "primary GPT header: entries at LBA 2, 1024 sectors (expected: between LBA 2 and the"
                + " first usable LBA 34)");
  }

  @Test
  void overlappingPartitionsAreRefused() throws IOException {
    byte[] d = disk(two());
    patchEntries(d, e -> e.putLong(128 + 32, 2500)); // b starts inside a
    assertThatThrownBy(() -> read(d))
        .isInstanceOf(GptFormatException.class)
        .hasMessage(
            "partition 2: sectors 2500..3071 overlap partition 1's 2048..2559 (expected: disjoint"
                + " partitions)");
  }

  @Test
  void aPartitionOutsideTheUsableSectorsIsRefused() throws IOException {
    byte[] d = disk(two());
    patchEntries(d, e -> e.putLong(128 + 40, SECTORS + 10L));
    assertThatThrownBy(() -> read(d))
        .hasMessage(
            "partition 2: sectors 2560..4106 (expected: inside the usable sectors 34..4062)");
    byte[] e = disk(two());
    patchEntries(e, x -> x.putLong(32, 3000)); // first after last
    assertThatThrownBy(() -> read(e)).hasMessageStartingWith("partition 1: sectors 3000..2559");
  }

  @Test
  void aTruncatedImageIsRefused() throws IOException {
    byte[] d = Arrays.copyOf(disk(two()), 1 << 20);
    assertThatThrownBy(() -> read(d))
        .isInstanceOf(GptFormatException.class)
        .hasMessage(
            "disk.raw: 2048 sectors of 512 bytes (expected: at least 4096, as its GPT says: the"
                + " image is truncated)");
    assertThatThrownBy(() -> read(Arrays.copyOf(d, 700)))
        .hasMessageStartingWith("disk.raw: no GPT");
  }

  @Test
  void noGptAtAllIsSaidSo() {
    assertThatThrownBy(() -> read(new byte[1 << 16]))
        .isInstanceOf(GptFormatException.class)
        .hasMessage(
            "disk.raw: no GPT ('EFI PART' at byte 512 or 4096; not a partitioned disk image)");
  }

  @Test
  void aDamagedBackupOrMbrIsAWarningNotARefusal() throws IOException {
    byte[] d = disk(two());
    d[d.length - 512 + 40] ^= 1; // the backup header
    d[510] = 0; // no MBR signature
    Gpt gpt = read(d);
    assertThat(gpt.partitions()).hasSize(2);
    assertThat(gpt.warnings()).hasSize(2);
    assertThat(gpt.warnings().get(0))
        .isEqualTo("no protective MBR (a partition of type 0xee at sector 0)");
    assertThat(gpt.warnings().get(1)).startsWith("backup GPT header: header CRC-32 0x");
  }

  @Test
  void namesAreUtf16AndGuidsMixedEndian() throws IOException {
    UUID guid = UUID.fromString("4f68bce3-e8cd-4db1-96e7-fbcaf984b709");
    byte[] d = disk(List.of(new GptEntry(0, guid, guid, 2048, 2048, 1L << 60, "räksmörgås")));
    assertThat(Arrays.copyOfRange(d, 1024, 1032))
        .containsExactly(0xe3, 0xbc, 0x68, 0x4f, 0xcd, 0xe8, 0xb1, 0x4d);
    GptEntry e = read(d).partitions().getFirst();
    assertThat(e.name()).isEqualTo("räksmörgås");
    assertThat(e.has(GptEntry.READ_ONLY)).isTrue();
  }
}
