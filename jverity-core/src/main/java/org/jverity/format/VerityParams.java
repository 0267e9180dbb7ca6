package org.jverity.format;

import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;
import org.jverity.hash.BlockHasher;
import org.jverity.hash.HashAlgorithm;

/**
 * Everything that defines a dm-verity hash tree, as veritysetup's options and the superblock name
 * it. Immutable and validated: an instance always describes a tree the kernel would accept.
 *
 * @param hashAlgorithm the digest used for every block
 * @param hashFormat format 0 (Chrome OS) or 1 (normal)
 * @param dataBlockSize bytes per data block, a power of two in [512, 512 KiB]
 * @param hashBlockSize bytes per hash block, a power of two in [512, 512 KiB]
 * @param dataBlocks number of data blocks covered by the tree, at least 1
 * @param hashOffset byte offset on the hash device where the superblock (or, without one, the tree)
 *     starts; a multiple of 512
 * @param salt raw salt bytes, at most 256; may be empty
 * @param uuid the superblock's UUID; null when there is no superblock or it is not yet known
 * @param superblock whether a 512-byte superblock sits at {@code hashOffset}
 */
public record VerityParams(
    HashAlgorithm hashAlgorithm,
    HashFormat hashFormat,
    int dataBlockSize,
    int hashBlockSize,
    long dataBlocks,
    long hashOffset,
    byte[] salt,
    UUID uuid,
    boolean superblock) {

  /** Smallest block size veritysetup accepts: one sector. */
  public static final int MIN_BLOCK_SIZE = 512;

  /** Largest block size veritysetup accepts: 512 KiB. */
  public static final int MAX_BLOCK_SIZE = 512 * 1024;

  /** The superblock's salt field is 256 bytes long. */
  public static final int MAX_SALT_SIZE = 256;

  /**
   * Offsets on the hash device are counted in 512-byte sectors by the kernel, and veritysetup
   * refuses a FEC offset that is not a whole number of them ("Unsupported VERITY FEC offset").
   */
  public static final int SECTOR_SIZE = 512;

  public VerityParams {
    Objects.requireNonNull(hashAlgorithm, "hashAlgorithm");
    Objects.requireNonNull(hashFormat, "hashFormat");
    checkBlockSize("data block size", dataBlockSize);
    checkBlockSize("hash block size", hashBlockSize);
    if (hashBlockSize < 2 * hashAlgorithm.digestSize()) {
      // A hash block must hold at least two digests, or the tree never narrows.
      throw new VerityParameterException(
          "hash block size: "
              + hashBlockSize
              + " (expected: at least two "
              + hashAlgorithm
              + " digests, "
              + 2 * hashAlgorithm.digestSize()
              + " bytes)");
    }
    if (dataBlocks < 1 || dataBlocks > Long.MAX_VALUE / dataBlockSize) {
      throw new VerityParameterException(
          "data blocks: "
              + dataBlocks
              + " (expected: 1 to "
              + Long.MAX_VALUE / dataBlockSize
              + ")");
    }
    if (hashOffset < 0 || hashOffset % SECTOR_SIZE != 0) {
      throw new VerityParameterException(
          "hash offset: "
              + hashOffset
              + " (expected: a non-negative multiple of "
              + SECTOR_SIZE
              + ")");
    }
    Objects.requireNonNull(salt, "salt");
    if (salt.length > MAX_SALT_SIZE) {
      throw new VerityParameterException(
          "salt: " + salt.length + " bytes (expected: at most " + MAX_SALT_SIZE + ")");
    }
    salt = salt.clone();
  }

  /** The block sizes {@link #validBlockSize} takes, in the words of a refusal. */
  public static final String BLOCK_SIZE_RANGE = "a power of two from 512 to 524288";

  /**
   * Whether {@code n} is a data or hash block size: a power of two in [512, 512 KiB], as
   * veritysetup takes (the kernel also wants at most its page size). The one rule, for AVB's
   * descriptors and options too.
   */
  public static boolean validBlockSize(long n) {
    return n >= MIN_BLOCK_SIZE && n <= MAX_BLOCK_SIZE && Long.bitCount(n) == 1;
  }

  /** Throws unless {@code n} is a power of two in [512, 512 KiB] ({@link #validBlockSize}). */
  public static int checkBlockSize(String what, long n) {
    if (!validBlockSize(n)) {
      throw new VerityParameterException(what + ": " + n + " (expected: " + BLOCK_SIZE_RANGE + ")");
    }
    return (int) n; // <= 512 KiB, fits
  }

  @Override
  public byte[] salt() {
    return salt.clone();
  }

  /** Salt length in bytes, without copying the salt. */
  public int saltSize() {
    return salt.length;
  }

  /**
   * A hasher of dm-verity's for these parameters: the salt before the block in format 1, after it
   * in format 0. Not thread-safe: one per thread.
   */
  public BlockHasher blockHasher() {
    return hashFormat.saltFirst()
        ? BlockHasher.saltBefore(hashAlgorithm, salt)
        : BlockHasher.saltAfter(hashAlgorithm, salt);
  }

  /** Bytes of data the tree covers. */
  public long dataSize() {
    return dataBlocks * dataBlockSize; // cannot overflow, checked in the constructor
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VerityParams p
        && hashAlgorithm.equals(p.hashAlgorithm)
        && hashFormat == p.hashFormat
        && dataBlockSize == p.dataBlockSize
        && hashBlockSize == p.hashBlockSize
        && dataBlocks == p.dataBlocks
        && hashOffset == p.hashOffset
        && Arrays.equals(salt, p.salt)
        && Objects.equals(uuid, p.uuid)
        && superblock == p.superblock;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
                hashAlgorithm,
                hashFormat,
                dataBlockSize,
                hashBlockSize,
                dataBlocks,
                hashOffset,
                uuid,
                superblock)
            * 31
        + Arrays.hashCode(salt);
  }

  @Override
  public String toString() {
    return "VerityParams["
        + hashAlgorithm
        + ", format "
        + hashFormat.code()
        + ", data "
        + dataBlocks
        + "x"
        + dataBlockSize
        + ", hash block "
        + hashBlockSize
        + ", offset "
        + hashOffset
        + ", salt "
        + (salt.length == 0 ? "-" : Hex.format(salt))
        + ", uuid "
        + uuid
        + (superblock ? "" : ", no superblock")
        + "]";
  }

  /**
   * Mutable builder with veritysetup's defaults: sha256, format 1, 4096-byte blocks, hash offset 0,
   * empty salt, superblock on. Not thread-safe.
   */
  public static final class Builder {
    private HashAlgorithm hashAlgorithm = HashAlgorithm.SHA256;
    private HashFormat hashFormat = HashFormat.NORMAL;
    private int dataBlockSize = 4096;
    private int hashBlockSize = 4096;
    private long dataBlocks;
    private long hashOffset;
    private byte[] salt = new byte[0];
    private UUID uuid;
    private boolean superblock = true;

    private Builder() {}

    private Builder(VerityParams p) {
      hashAlgorithm = p.hashAlgorithm;
      hashFormat = p.hashFormat;
      dataBlockSize = p.dataBlockSize;
      hashBlockSize = p.hashBlockSize;
      dataBlocks = p.dataBlocks;
      hashOffset = p.hashOffset;
      salt = p.salt;
      uuid = p.uuid;
      superblock = p.superblock;
    }

    public Builder hashAlgorithm(HashAlgorithm v) {
      hashAlgorithm = v;
      return this;
    }

    public Builder hashFormat(HashFormat v) {
      hashFormat = v;
      return this;
    }

    public Builder dataBlockSize(int v) {
      dataBlockSize = v;
      return this;
    }

    public Builder hashBlockSize(int v) {
      hashBlockSize = v;
      return this;
    }

    public Builder blockSize(int v) {
      dataBlockSize = v;
      hashBlockSize = v;
      return this;
    }

    public Builder dataBlocks(long v) {
      dataBlocks = v;
      return this;
    }

    public Builder hashOffset(long v) {
      hashOffset = v;
      return this;
    }

    public Builder salt(byte[] v) {
      salt = v.clone();
      return this;
    }

    public Builder uuid(UUID v) {
      uuid = v;
      return this;
    }

    public Builder superblock(boolean v) {
      superblock = v;
      return this;
    }

    /** The data block size set so far (default 4096). */
    public int dataBlockSize() {
      return dataBlockSize;
    }

    public VerityParams build() {
      return new VerityParams(
          hashAlgorithm,
          hashFormat,
          dataBlockSize,
          hashBlockSize,
          dataBlocks,
          hashOffset,
          salt,
          uuid,
          superblock);
    }
  }
}
