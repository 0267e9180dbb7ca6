package org.jverity.fsverity;

import java.util.Arrays;
import java.util.HexFormat;
import org.jverity.format.VerityParameterException;
import org.jverity.hash.HashAlgorithm;

/**
 * What decides an fs-verity file digest besides the file: the hash algorithm, the Merkle tree block
 * size and the salt. The limits are fsverity-utils 1.5's ({@code libfsverity_compute_digest}):
 * SHA-256 or SHA-512, a power-of-two block size of at least two digests (64 bytes for SHA-256, 128
 * for SHA-512) and at most 1 GiB, a salt of at most 32 bytes. The kernel only enables blocks from 1
 * KiB to the page size, but {@code fsverity digest} computes digests for all of these.
 *
 * @param algorithm the tree's and the descriptor's hash
 * @param blockSize bytes per data and per hash block
 * @param salt up to {@link #MAX_SALT_SIZE} bytes, empty for none
 */
public record FsVerityParams(HashAlgorithm algorithm, int blockSize, byte[] salt) {
  /** fsverity-utils' and the kernel's default block size. */
  public static final int DEFAULT_BLOCK_SIZE = 4096; // bytes

  /** The descriptor's salt field. */
  public static final int MAX_SALT_SIZE = 32; // bytes

  /**
   * log_blocksize is a u8, but fsverity-utils parses the size as an int: 2^30 is its largest power
   * of two.
   */
  public static final int MAX_BLOCK_SIZE = 1 << 30; // bytes

  public FsVerityParams {
    if (!algorithm.equals(HashAlgorithm.SHA256) && !algorithm.equals(HashAlgorithm.SHA512)) {
      throw new VerityParameterException(
          "hash algorithm: " + algorithm + " (expected: sha256 or sha512)");
    }
    int min = 2 * algorithm.digestSize();
    if (Integer.bitCount(blockSize) != 1 || blockSize < min || blockSize > MAX_BLOCK_SIZE) {
      throw new VerityParameterException(
          "block size: "
              + blockSize
              + " (expected: a power of two from "
              + min
              + " to "
              + MAX_BLOCK_SIZE
              + " for "
              + algorithm
              + ")");
    }
    if (salt.length > MAX_SALT_SIZE) {
      throw new VerityParameterException(
          "salt: " + salt.length + " bytes (expected: at most " + MAX_SALT_SIZE + ")");
    }
    salt = salt.clone();
  }

  /** SHA-256, 4 KiB blocks, no salt: {@code fsverity digest}'s defaults. */
  public static FsVerityParams defaults() {
    return new FsVerityParams(HashAlgorithm.SHA256, DEFAULT_BLOCK_SIZE, new byte[0]);
  }

  @Override
  public byte[] salt() {
    return salt.clone();
  }

  /** fs-verity's number for the algorithm ({@code FS_VERITY_HASH_ALG_*}): 1 SHA-256, 2 SHA-512. */
  public int algorithmId() {
    return FsVerityDescriptor.algorithmId(algorithm);
  }

  /** log2 of the block size, as the descriptor stores it. */
  public int logBlockSize() {
    return Integer.numberOfTrailingZeros(blockSize);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FsVerityParams p
        && p.algorithm == algorithm
        && p.blockSize == blockSize
        && Arrays.equals(p.salt, salt);
  }

  @Override
  public int hashCode() {
    return (algorithm.hashCode() * 31 + blockSize) * 31 + Arrays.hashCode(salt);
  }

  @Override
  public String toString() {
    return "FsVerityParams["
        + algorithm
        + ", "
        + blockSize
        + "-byte blocks, salt "
        + (salt.length == 0 ? "none" : HexFormat.of().formatHex(salt))
        + "]";
  }
}
