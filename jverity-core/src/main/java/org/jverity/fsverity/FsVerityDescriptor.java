package org.jverity.fsverity;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.jverity.format.VerityParameterException;
import org.jverity.hash.BlockHasher;
import org.jverity.hash.HashAlgorithm;

/**
 * The fs-verity descriptor ({@code struct fsverity_descriptor}, 256 bytes, little-endian), whose
 * digest is the file digest that {@code fsverity digest} prints and the kernel measures:
 *
 * <pre>
 *   u8    version         @0    always 1
 *   u8    hash_algorithm  @1    1 = SHA-256, 2 = SHA-512
 *   u8    log_blocksize   @2    log2(Merkle tree block size)
 *   u8    salt_size       @3    bytes of salt used, 0..32
 *   le32  sig_size        @4    0 here (the kernel keeps a signature's size there, outside the digest)
 *   le64  data_size       @8    file size in bytes
 *   u8    root_hash[64]   @16   the tree's root hash, zero-padded
 *   u8    salt[32]        @80   the salt, zero-padded
 *   u8    reserved[144]   @112  zeros
 * </pre>
 *
 * @param params algorithm, block size and salt
 * @param dataSize the file's size in bytes
 * @param rootHash the Merkle tree's root hash, {@code params.algorithm().digestSize()} bytes
 */
public record FsVerityDescriptor(FsVerityParams params, long dataSize, byte[] rootHash) {
  /** Bytes in an encoded descriptor. */
  public static final int SIZE = 256;

  static final int VERSION = 1;
  private static final int ROOT_HASH_AT = 16; // bytes
  private static final int ROOT_HASH_FIELD = 64; // bytes
  private static final int SALT_AT = 80; // bytes
  private static final int RESERVED_AT = 112; // bytes

  public FsVerityDescriptor {
    if (dataSize < 0) {
      throw new VerityParameterException("data size: " + dataSize + " (expected: >= 0)");
    }
    if (rootHash.length != params.algorithm().digestSize()) {
      throw new VerityParameterException(
          "root hash: "
              + rootHash.length
              + " bytes (expected: "
              + params.algorithm().digestSize()
              + " for "
              + params.algorithm()
              + ")");
    }
    rootHash = rootHash.clone();
  }

  @Override
  public byte[] rootHash() {
    return rootHash.clone();
  }

  /** The 256 bytes the kernel and {@code fsverity digest --out-descriptor} write. */
  public byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
    byte[] salt = params.salt();
    b.put((byte) VERSION)
        .put((byte) params.algorithmId())
        .put((byte) params.logBlockSize())
        .put((byte) salt.length)
        .putInt(0) // sig_size
        .putLong(dataSize)
        .put(ROOT_HASH_AT, rootHash)
        .put(SALT_AT, salt);
    return b.array();
  }

  /**
   * Reads an encoded descriptor, refusing anything {@code fsverity} would not write: another
   * version, an unknown algorithm, a block size it refuses, a salt over 32 bytes, a signature size,
   * non-zero padding or reserved bytes.
   */
  public static FsVerityDescriptor decode(byte[] bytes) {
    if (bytes.length != SIZE) {
      throw new VerityParameterException(
          "fs-verity descriptor: " + bytes.length + " bytes (expected: " + SIZE + ")");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    int version = b.get(0) & 0xff;
    if (version != VERSION) {
      throw new VerityParameterException(
          "fs-verity descriptor version: " + version + " (expected: " + VERSION + ")");
    }
    HashAlgorithm alg = algorithm(b.get(1) & 0xff);
    int log = b.get(2) & 0xff;
    if (log > 30) {
      throw new VerityParameterException(
          "fs-verity descriptor log_blocksize: " + log + " (expected: at most 30)");
    }
    int saltSize = b.get(3) & 0xff;
    if (saltSize > FsVerityParams.MAX_SALT_SIZE) {
      throw new VerityParameterException(
          "fs-verity descriptor salt_size: "
              + saltSize
              + " (expected: at most "
              + FsVerityParams.MAX_SALT_SIZE
              + ")");
    }
    int sigSize = b.getInt(4);
    if (sigSize != 0) {
      throw new VerityParameterException(
          "fs-verity descriptor sig_size: "
              + Integer.toUnsignedString(sigSize)
              + " (expected: 0; the digest is over a descriptor without signature)");
    }
    long dataSize = b.getLong(8);
    if (dataSize < 0) {
      throw new VerityParameterException(
          "fs-verity descriptor data_size: "
              + Long.toUnsignedString(dataSize)
              + " (expected: below 2^63)");
    }
    int d = alg.digestSize();
    requireZero(bytes, ROOT_HASH_AT + d, ROOT_HASH_AT + ROOT_HASH_FIELD, "root hash padding");
    requireZero(bytes, SALT_AT + saltSize, RESERVED_AT, "salt padding");
    requireZero(bytes, RESERVED_AT, SIZE, "reserved bytes");
    FsVerityParams params =
        new FsVerityParams(alg, 1 << log, Arrays.copyOfRange(bytes, SALT_AT, SALT_AT + saltSize));
    return new FsVerityDescriptor(
        params, dataSize, Arrays.copyOfRange(bytes, ROOT_HASH_AT, ROOT_HASH_AT + d));
  }

  /**
   * The file digest: the descriptor hashed with the tree's algorithm (as a run of one unsalted
   * block, so that the native loop takes it where the tree's blocks went).
   */
  public byte[] digest() {
    byte[] descriptor = encode();
    byte[] out = new byte[params.algorithm().digestSize()];
    BlockHasher.saltBefore(params.algorithm(), new byte[0])
        .hashBlocks(descriptor, 0, descriptor.length, 1, out, 0, out.length);
    return out;
  }

  /** The file digest as {@code fsverity digest} prints it: {@code sha256:<hex>}. */
  public String formattedDigest() {
    return fileDigest().toString();
  }

  /** The file digest with its algorithm. */
  public FsVerityDigest fileDigest() {
    return new FsVerityDigest(params.algorithm(), digest());
  }

  /**
   * {@code struct fsverity_formatted_digest}, what a built-in signature signs: "FSVerity", le16
   * algorithm, le16 digest size, the digest (12 + digest size bytes).
   */
  public byte[] signedDigest() {
    byte[] digest = digest();
    return ByteBuffer.allocate(12 + digest.length)
        .order(ByteOrder.LITTLE_ENDIAN)
        .put("FSVerity".getBytes(StandardCharsets.US_ASCII))
        .putShort((short) params.algorithmId())
        .putShort((short) digest.length)
        .put(digest)
        .array();
  }

  static int algorithmId(HashAlgorithm algorithm) {
    if (algorithm.equals(HashAlgorithm.SHA256)) {
      return 1;
    }
    if (algorithm.equals(HashAlgorithm.SHA512)) {
      return 2;
    }
    throw new VerityParameterException(
        "hash algorithm: " + algorithm + " (expected: sha256 or sha512)");
  }

  private static HashAlgorithm algorithm(int id) {
    return switch (id) {
      case 1 -> HashAlgorithm.SHA256;
      case 2 -> HashAlgorithm.SHA512;
      default ->
          throw new VerityParameterException(
              "fs-verity descriptor hash_algorithm: "
                  + id
                  + " (expected: 1 for sha256 or 2 for sha512)");
    };
  }

  private static void requireZero(byte[] b, int from, int to, String what) {
    for (int i = from; i < to; i++) {
      if (b[i] != 0) {
        throw new VerityParameterException(
            "fs-verity descriptor "
                + what
                + ": byte "
                + i
                + " is "
                + (b[i] & 0xff)
                + " (expected: 0)");
      }
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FsVerityDescriptor d
        && d.params.equals(params)
        && d.dataSize == dataSize
        && Arrays.equals(d.rootHash, rootHash);
  }

  @Override
  public int hashCode() {
    return (params.hashCode() * 31 + Long.hashCode(dataSize)) * 31 + Arrays.hashCode(rootHash);
  }

  @Override
  public String toString() {
    return "FsVerityDescriptor["
        + params
        + ", "
        + dataSize
        + " bytes, root "
        + HexFormat.of().formatHex(rootHash)
        + "]";
  }
}
