package org.jverity.ddi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.jverity.ddi.gpt.Gpt;
import org.jverity.ddi.gpt.GptEntry;
import org.jverity.ddi.gpt.Guids;
import org.jverity.format.VerityParams;
import org.jverity.io.BlockDevice;
import org.jverity.io.SliceDevice;
import org.jverity.io.WritableDevice;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.ProgressListener;
import org.jverity.tree.TreeBuilder;

/**
 * Builds a DDI in a plain file, as an ordinary user: no loop device, no device-mapper, no mount.
 * The file system image is copied into the data partition; the tree is built from that copy (so the
 * tree is of what the image holds, whatever the source does meanwhile) into the verity partition
 * after it, superblock first; the root hash is signed into the signature partition; the GPT goes in
 * last, since the data and verity partitions' UUIDs are the root hash's halves. Every salt and UUID
 * comes from the request's seed: two builds of one input are byte-identical. Stateless.
 */
public final class DdiBuilder {
  /** Partition starts and sizes are multiples of this (a page, a 4Kn sector). */
  static final long GRAIN = 4096;

  /** The first partition starts at 1 MiB, as partitioning tools leave room. */
  static final long FIRST_PARTITION = 1 << 20;

  /** Bytes of the file system image copied at a time. */
  private static final int COPY_CHUNK = 1 << 20;

  private DdiBuilder() {}

  /**
   * Writes the DDI of {@code fs} to {@code out}, which must be empty (a new file).
   *
   * @param progress told of the bytes copied, then of the bytes hashed
   * @throws DdiFormatException when the file system image is empty, or a signer signed another root
   *     hash
   * @throws GeneralSecurityException when the signer's key cannot sign
   */
  public static BuiltImage build(
      BuildRequest r, BlockDevice fs, WritableDevice out, ProgressListener progress)
      throws IOException, GeneralSecurityException {
    return build(r, fs, List.of(), out, progress);
  }

  /**
   * As {@link #build(BuildRequest, BlockDevice, WritableDevice, ProgressListener)}, with {@code
   * extras} after the verity set in the order given, each copied in, starting on a 4096-byte
   * boundary and as long as its content rounded up to one, without flags, named and given a UUID as
   * repart names and derives them for a partition with only a {@code Type=}.
   *
   * @param progress told of the bytes copied, then of the bytes hashed, then of the extras' bytes
   * @throws DdiFormatException when an extra is empty or of the verity set's types
   */
  public static BuiltImage build(
      BuildRequest r,
      BlockDevice fs,
      List<ExtraPartition> extras,
      WritableDevice out,
      ProgressListener progress)
      throws IOException, GeneralSecurityException {
    long fsSize = fs.size();
    if (fsSize == 0) {
      throw new DdiFormatException(fs.description() + ": empty (expected: a file system image)");
    }
    int block = r.blockSize();
    long dataStart = FIRST_PARTITION;
    long dataSize = roundUp(fsSize, Math.max(block, GRAIN));
    copy(fs, out, dataStart, fsSize, progress);
    if (dataSize > fsSize) { // the last block's tail is zeros, written so, whatever out held
      out.writeFully(dataStart + fsSize, ByteBuffer.allocate((int) (dataSize - fsSize)));
    }

    long verityStart = dataStart + dataSize;
    VerityParams params =
        VerityParams.builder()
            .blockSize(block)
            .dataBlocks(dataSize / block)
            .salt(
                r.salt() != null
                    ? r.salt()
                    : Derivation.hmac(r.seedBytes(), "verity-salt")) // repart 255+: all 32 bytes
            .uuid(r.derived("verity-uuid")) // repart.c: derive_uuid(seed, "verity-uuid")
            .superblock(true)
            .build();
    SliceDevice data = SliceDevice.of(out, dataStart, dataSize, "data partition");
    byte[] root =
        TreeBuilder.of(params.toBuilder().hashOffset(verityStart).build())
            .withProgress(progress)
            .build(data, out); // the slice is a view of out: closing it would close out
    String rootHex = HexFormat.of().formatHex(root);
    long veritySize = roundUp(MerkleLayout.dmVerity(params).hashDeviceSize(), GRAIN);

    List<GptEntry> entries = new ArrayList<>();
    entries.add(
        entry(0, r.type(r.data()), Guids.ofBytes(root, 0), dataStart, dataSize, r.sectorSize()));
    entries.add(
        entry(
            1,
            r.type(r.data().verity()),
            Guids.ofBytes(root, root.length - 16),
            verityStart,
            veritySize,
            r.sectorSize()));
    long end = verityStart + veritySize;
    VeritySignature signature = null;
    if (r.signer() != null) {
      signature = r.signer().sign(rootHex);
      if (!signature.rootHash().equals(rootHex)) {
        throw new DdiFormatException(
            "signature: signs root hash " + signature.rootHash() + " (expected: " + rootHex + ")");
      }
      byte[] bytes = signature.encode();
      out.writeFully(end, ByteBuffer.wrap(bytes));
      PartitionType sigType = r.type(r.data().signature());
      entries.add(
          new GptEntry(
              2,
              sigType.uuid(),
              Derivation.partitionUuid(r.seedBytes(), sigType.uuid()),
              end / r.sectorSize(),
              (end + bytes.length) / r.sectorSize() - 1,
              0, // the signature partition's type has no read-only flag (systemd's gpt.c)
              sigType.name()));
      end += bytes.length;
    }
    for (ExtraPartition extra : extras) {
      end = addExtra(r, extra, entries, end, out, progress);
    }
    long sectors = end / r.sectorSize() + (Gpt.firstUsableLba(r.sectorSize()) - 2) + 1;
    Gpt gpt = Gpt.write(out, r.sectorSize(), sectors, r.derived("disk-uuid"), entries);
    out.flush();
    return new BuiltImage(gpt, params, rootHex, signature);
  }

  /** Copies {@code extra} in at {@code start} and adds its entry; returns where it ends. */
  private static long addExtra(
      BuildRequest r,
      ExtraPartition extra,
      List<GptEntry> entries,
      long start,
      WritableDevice out,
      ProgressListener progress)
      throws IOException {
    ExtraType type = extra.type();
    long size = extra.content().size();
    if (size == 0) {
      throw new DdiFormatException(
          extra.content().description() + ": empty (expected: a " + type + " partition's bytes)");
    }
    if (PartitionTypes.byUuid(type.uuid()) // a second one would make the image ambiguous
        .filter(t -> t.designator().data() == r.data() && t.arch().equals(r.arch()))
        .isPresent()) {
      throw new DdiFormatException(
          extra.content().description()
              + ": type "
              + type
              + " is the verity set's own (expected: another type)");
    }
    long earlier = entries.stream().filter(e -> e.type().equals(type.uuid())).count();
    long rounded = roundUp(size, GRAIN);
    copy(extra.content(), out, start, size, progress);
    if (rounded > size) { // zeros to the partition's end, whatever out held there
      out.writeFully(start + size, ByteBuffer.allocate((int) (rounded - size)));
    }
    entries.add(
        new GptEntry(
            entries.size(),
            type.uuid(),
            Derivation.partitionUuid(r.seedBytes(), type.uuid(), earlier),
            start / r.sectorSize(),
            (start + rounded) / r.sectorSize() - 1,
            0, // repart sets no flag a Type= alone does not ask for
            label(type, entries)));
    return start + rounded;
  }

  /** repart's label for a partition without {@code Label=}: the type's name, then NAME-2, ... */
  private static String label(ExtraType type, List<GptEntry> earlier) {
    String label = type.labelPrefix();
    for (int k = 2; taken(label, earlier); k++) {
      label = type.labelPrefix() + "-" + k;
    }
    return label;
  }

  private static boolean taken(String label, List<GptEntry> entries) {
    return entries.stream().anyMatch(e -> e.name().equals(label));
  }

  private static GptEntry entry(
      int index, PartitionType type, java.util.UUID guid, long start, long size, int sectorSize) {
    return new GptEntry(
        index,
        type.uuid(),
        guid,
        start / sectorSize,
        (start + size) / sectorSize - 1,
        GptEntry.READ_ONLY,
        type.name());
  }

  private static void copy(
      BlockDevice from, WritableDevice to, long at, long size, ProgressListener progress)
      throws IOException {
    ByteBuffer chunk = ByteBuffer.allocateDirect((int) Math.min(COPY_CHUNK, size));
    for (long done = 0; done < size; ) {
      int n = (int) Math.min(chunk.capacity(), size - done);
      chunk.clear().limit(n);
      from.readFully(done, chunk);
      chunk.flip();
      to.writeFully(at + done, chunk);
      done += n;
      progress.advanced(n);
    }
  }

  static long roundUp(long n, long multiple) {
    return (n + multiple - 1) / multiple * multiple;
  }
}
