package org.jverity.fsverity;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.jverity.format.HashAlgorithm;

/**
 * The fs-verity file digest: the hash of the 256-byte {@code struct fsverity_descriptor}, with the
 * tree's own algorithm. Only what {@link VerifiedFile} needs to check a digest; the full descriptor
 * codec (and its writer for {@code --out-descriptor}) belongs to {@code FsVerityDescriptor} on the
 * digest branch, which this class should be folded into when both are merged.
 *
 * <p>Layout (little-endian): {@code u8 version = 1 @0; u8 hash_algorithm @1; u8 log_blocksize @2;
 * u8 salt_size @3; le32 sig_size = 0 @4; le64 data_size @8; u8 root_hash[64] @16 (zero-padded);
 * u8 salt[32] @80 (zero-padded); u8 reserved[144] = 0 @112}.
 */
final class DescriptorDigest {
  static final int SIZE = 256; // bytes
  static final int MAX_SALT = 32; // bytes: the descriptor's salt field
  private static final int ROOT_OFFSET = 16;
  private static final int SALT_OFFSET = 80;

  private DescriptorDigest() {}

  /** fs-verity's number for {@code alg} ({@code FS_VERITY_HASH_ALG_*}), or -1 if it has none. */
  static int algorithmId(HashAlgorithm alg) {
    return switch (alg) {
      case SHA256 -> 1;
      case SHA512 -> 2;
      default -> -1;
    };
  }

  /** The descriptor of a {@code dataSize}-byte file whose tree has {@code rootHash}. */
  static byte[] descriptor(HashAlgorithm alg, int blockSize, byte[] salt, long dataSize, byte[] rootHash) {
    ByteBuffer d = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
    d.put((byte) 1)
        .put((byte) algorithmId(alg))
        .put((byte) Integer.numberOfTrailingZeros(blockSize)) // log2(block size)
        .put((byte) salt.length)
        .putInt(0) // sig_size: zero in the digested descriptor
        .putLong(dataSize);
    d.put(ROOT_OFFSET, rootHash).put(SALT_OFFSET, salt);
    return d.array();
  }

  /** The file digest: H(descriptor). */
  static byte[] digest(HashAlgorithm alg, int blockSize, byte[] salt, long dataSize, byte[] rootHash) {
    return alg.newDigest().digest(descriptor(alg, blockSize, salt, dataSize, rootHash));
  }
}
