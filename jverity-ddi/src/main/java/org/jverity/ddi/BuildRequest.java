package org.jverity.ddi;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;
import org.jverity.ddi.gpt.Gpt;
import org.jverity.format.VerityParams;

/**
 * What {@code ddi build} makes: which data partition for which architecture, the sector size, the
 * tree's block sizes, the seed every salt and UUID derives from (or the salt given), and who signs.
 * Immutable.
 *
 * @param data {@link Designator#ROOT} or {@link Designator#USR}
 * @param arch the architecture, as systemd spells it
 * @param sectorSize 512 or 4096
 * @param blockSize the tree's data and hash block size
 * @param seed what salt and UUIDs derive from, as repart's {@code --seed}; two builds with one seed
 *     are byte-identical
 * @param salt the salt given, or null to derive it from the seed
 * @param signer who signs the root hash; null for an image without a signature partition
 */
public record BuildRequest(
    Designator data,
    String arch,
    int sectorSize,
    int blockSize,
    UUID seed,
    byte[] salt,
    RootHashSigner signer) {

  public BuildRequest {
    if (!data.isData()) {
      throw new IllegalArgumentException("data partition: " + data + " (expected: root or usr)");
    }
    PartitionTypes.of(data, arch); // refuses an architecture the table does not have
    if (!Gpt.SECTOR_SIZES.contains(sectorSize)) {
      throw new IllegalArgumentException("sector size: " + sectorSize + " (expected: 512 or 4096)");
    }
    VerityParams.checkBlockSize("block size", blockSize);
    if (blockSize < sectorSize) {
      throw new IllegalArgumentException(
          "block size: " + blockSize + " (expected: at least the sector size " + sectorSize + ")");
    }
    Objects.requireNonNull(seed, "seed");
    salt = salt == null ? null : salt.clone();
  }

  /** The seed's 16 bytes, the HMAC key of every derivation (an {@code sd_id128}'s bytes). */
  byte[] seedBytes() {
    return ByteBuffer.allocate(16)
        .putLong(seed.getMostSignificantBits())
        .putLong(seed.getLeastSignificantBits())
        .array();
  }

  @Override
  public byte[] salt() {
    return salt == null ? null : salt.clone();
  }

  /** The type of the partition {@code d} designates, for this request's architecture. */
  public PartitionType type(Designator d) {
    return PartitionTypes.of(d, arch);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BuildRequest r
        && data == r.data
        && arch.equals(r.arch)
        && sectorSize == r.sectorSize
        && blockSize == r.blockSize
        && seed.equals(r.seed)
        && Arrays.equals(salt, r.salt)
        && Objects.equals(signer, r.signer);
  }

  @Override
  public int hashCode() {
    return Objects.hash(data, arch, sectorSize, blockSize, seed);
  }

  @Override
  public String toString() {
    return "BuildRequest[" + type(data) + ", sector " + sectorSize + ", block " + blockSize + "]";
  }

  /** A UUID of this request's seed, for {@link Derivation}. */
  UUID derived(String purpose) {
    return Derivation.uuid(seedBytes(), purpose);
  }
}
