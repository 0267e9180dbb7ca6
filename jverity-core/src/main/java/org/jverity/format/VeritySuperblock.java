package org.jverity.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.UUID;

/**
 * The 512-byte dm-verity superblock that veritysetup writes at the hash offset (cryptsetup {@code
 * struct verity_sb}). The kernel never reads it; userspace uses it to recover the parameters.
 *
 * <pre>
 * offset size field
 *      0    8 signature        "verity\0\0"
 *      8    4 version          1
 *     12    4 hash_type        0 = Chrome OS, 1 = normal
 *     16   16 uuid             raw bytes in textual order
 *     32   32 algorithm        NUL-terminated, lower case
 *     64    4 data_block_size  bytes
 *     68    4 hash_block_size  bytes
 *     72    8 data_blocks      count
 *     80    2 salt_size        bytes, at most 256
 *     82    6 pad              zero
 *     88  256 salt             salt_size bytes used, rest zero
 *    344  168 pad              zero
 * </pre>
 *
 * All integers are little-endian. Immutable.
 *
 * @param hashFormat {@code hash_type}
 * @param uuid {@code uuid}
 * @param algorithm {@code algorithm}, as stored (lower case)
 * @param dataBlockSize bytes
 * @param hashBlockSize bytes
 * @param dataBlocks count
 * @param salt raw salt, at most 256 bytes
 */
public record VeritySuperblock(
    HashFormat hashFormat,
    UUID uuid,
    String algorithm,
    int dataBlockSize,
    int hashBlockSize,
    long dataBlocks,
    byte[] salt) {

  /** Size of the superblock on disk, in bytes. */
  public static final int SIZE = 512;

  private static final byte[] SIGNATURE = "verity\0\0".getBytes(StandardCharsets.US_ASCII);
  private static final int VERSION = 1;
  private static final int ALGORITHM_FIELD = 32;
  private static final int SALT_FIELD = 256;

  public VeritySuperblock {
    Objects.requireNonNull(hashFormat, "hashFormat");
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(algorithm, "algorithm");
    salt = salt.clone();
  }

  /** The superblock that describes {@code p}; {@code p} must carry a UUID. */
  public static VeritySuperblock of(VerityParams p) {
    if (p.uuid() == null) {
      throw new VerityParameterException("uuid: missing (a superblock needs one)");
    }
    return new VeritySuperblock(
        p.hashFormat(),
        p.uuid(),
        p.hashAlgorithm().kernelName(),
        p.dataBlockSize(),
        p.hashBlockSize(),
        p.dataBlocks(),
        p.salt());
  }

  @Override
  public byte[] salt() {
    return salt.clone();
  }

  /** Encodes into a new 512-byte array. */
  public byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
    b.put(SIGNATURE);
    b.putInt(VERSION);
    b.putInt(hashFormat.code());
    // UUID bytes are stored in textual order, i.e. big-endian; undo the buffer's byte order.
    b.putLong(16, Long.reverseBytes(uuid.getMostSignificantBits()));
    b.putLong(24, Long.reverseBytes(uuid.getLeastSignificantBits()));
    byte[] alg = algorithm.getBytes(StandardCharsets.US_ASCII);
    if (alg.length >= ALGORITHM_FIELD) {
      throw new VerityParameterException("hash algorithm name: " + algorithm + " (too long)");
    }
    b.put(32, alg);
    b.putInt(64, dataBlockSize);
    b.putInt(68, hashBlockSize);
    b.putLong(72, dataBlocks);
    b.putShort(80, (short) salt.length); // <= 256, checked by VerityParams or decode
    b.put(88, salt);
    return b.array();
  }

  /**
   * Decodes and checks a superblock as cryptsetup does: signature, version 1, hash type 0 or 1,
   * block sizes, salt size. The algorithm name is kept even when jverity does not know it.
   *
   * @param source names the device in error messages
   * @throws SuperblockException with one line saying which field is wrong
   */
  public static VeritySuperblock decode(String source, byte[] bytes) throws SuperblockException {
    if (bytes.length < SIZE) {
      throw new SuperblockException(
          source + ": superblock truncated (" + bytes.length + " of 512 bytes)");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes, 0, SIZE).order(ByteOrder.LITTLE_ENDIAN);
    if (!Arrays.equals(bytes, 0, SIGNATURE.length, SIGNATURE, 0, SIGNATURE.length)) {
      throw new SuperblockException(
          source + ": no verity superblock (signature is not \"verity\")");
    }
    long version = Integer.toUnsignedLong(b.getInt(8));
    if (version != VERSION) {
      throw new SuperblockException(
          source + ": unsupported superblock version " + version + " (expected: 1)");
    }
    long hashType = Integer.toUnsignedLong(b.getInt(12));
    if (hashType > 1) {
      throw new SuperblockException(
          source + ": unsupported hash type " + hashType + " (expected: 0 or 1)");
    }
    UUID uuid = new UUID(Long.reverseBytes(b.getLong(16)), Long.reverseBytes(b.getLong(24)));
    int nul = 0;
    while (nul < ALGORITHM_FIELD && bytes[32 + nul] != 0) {
      nul++;
    }
    if (nul == ALGORITHM_FIELD || nul == 0) {
      throw new SuperblockException(
          source
              + ": superblock hash algorithm name is "
              + (nul == 0 ? "empty" : "not terminated"));
    }
    String algorithm = new String(bytes, 32, nul, StandardCharsets.US_ASCII);
    for (char c : algorithm.toCharArray()) {
      if (c < 0x21 || c > 0x7e) {
        throw new SuperblockException(source + ": superblock hash algorithm name is not printable");
      }
    }
    long dataBlockSize = Integer.toUnsignedLong(b.getInt(64));
    long hashBlockSize = Integer.toUnsignedLong(b.getInt(68));
    checkSize(source, "data block size", dataBlockSize);
    checkSize(source, "hash block size", hashBlockSize);
    long dataBlocks = b.getLong(72);
    if (dataBlocks < 1 || dataBlocks > Long.MAX_VALUE / dataBlockSize) {
      throw new SuperblockException(
          source
              + ": superblock data blocks "
              + Long.toUnsignedString(dataBlocks)
              + " (expected: 1 to "
              + Long.MAX_VALUE / dataBlockSize
              + ")");
    }
    int saltSize = Short.toUnsignedInt(b.getShort(80));
    if (saltSize > SALT_FIELD) {
      throw new SuperblockException(
          source + ": superblock salt size " + saltSize + " (expected: at most 256)");
    }
    byte[] salt = Arrays.copyOfRange(bytes, 88, 88 + saltSize);
    return new VeritySuperblock(
        HashFormat.fromCode(hashType),
        uuid,
        algorithm,
        (int) dataBlockSize,
        (int) hashBlockSize,
        dataBlocks,
        salt);
  }

  private static void checkSize(String source, String what, long n) throws SuperblockException {
    if (n < VerityParams.MIN_BLOCK_SIZE
        || n > VerityParams.MAX_BLOCK_SIZE
        || Long.bitCount(n) != 1) {
      throw new SuperblockException(
          source
              + ": superblock "
              + what
              + " "
              + n
              + " (expected: a power of two from 512 to 524288)");
    }
  }

  /**
   * The tree parameters this superblock describes, for a superblock found at {@code hashOffset}.
   *
   * @throws UnsupportedHashAlgorithmException if no registered algorithm has the superblock's name
   * @throws VerityParameterException if the sizes are inconsistent
   */
  public VerityParams toParams(long hashOffset) {
    return new VerityParams(
        HashNames.fromName(algorithm),
        hashFormat,
        dataBlockSize,
        hashBlockSize,
        dataBlocks,
        hashOffset,
        salt,
        uuid,
        true);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VeritySuperblock s
        && hashFormat == s.hashFormat
        && uuid.equals(s.uuid)
        && algorithm.equals(s.algorithm)
        && dataBlockSize == s.dataBlockSize
        && hashBlockSize == s.hashBlockSize
        && dataBlocks == s.dataBlocks
        && Arrays.equals(salt, s.salt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(hashFormat, uuid, algorithm, dataBlockSize, hashBlockSize, dataBlocks) * 31
        + Arrays.hashCode(salt);
  }

  @Override
  public String toString() {
    return "VeritySuperblock["
        + algorithm
        + ", format "
        + hashFormat.code()
        + ", "
        + dataBlocks
        + "x"
        + dataBlockSize
        + ", hash block "
        + hashBlockSize
        + ", uuid "
        + uuid
        + ", salt "
        + (salt.length == 0 ? "-" : Hex.format(salt))
        + "]";
  }
}
