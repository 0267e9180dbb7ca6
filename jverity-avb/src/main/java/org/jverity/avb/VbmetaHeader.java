package org.jverity.avb;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The 256-byte {@code AVB0} header of a vbmeta image ({@code AvbVBMetaImageHeader}). Offsets of the
 * hash and signature are into the authentication block, those of the key, key metadata and
 * descriptors into the auxiliary block. The u64 fields are unsigned (libavb's arithmetic); the
 * release string holds at most 47 bytes, NUL-terminated in its 48-byte field.
 */
public record VbmetaHeader(
    int requiredLibavbVersionMajor,
    int requiredLibavbVersionMinor,
    long authenticationDataBlockSize,
    long auxiliaryDataBlockSize,
    long algorithmType,
    long hashOffset,
    long hashSize,
    long signatureOffset,
    long signatureSize,
    long publicKeyOffset,
    long publicKeySize,
    long publicKeyMetadataOffset,
    long publicKeyMetadataSize,
    long descriptorsOffset,
    long descriptorsSize,
    long rollbackIndex,
    int flags,
    int rollbackIndexLocation,
    String releaseString) {
  public static final int SIZE = 256;
  public static final int FLAG_HASHTREE_DISABLED = 1, FLAG_VERIFICATION_DISABLED = 2;

  /** The libavb version this code implements: images requiring a later minor are refused. */
  public static final int LIBAVB_VERSION_MAJOR = 1, LIBAVB_VERSION_MINOR = 3;

  /** Bytes of the release string field; the last must be NUL, so 47 bytes of text. */
  public static final int RELEASE_STRING_SIZE = 48;

  private static final byte[] MAGIC = {'A', 'V', 'B', '0'};
  private static final int RELEASE_STRING_OFFSET = 128;

  public VbmetaHeader {
    DescriptorFrame.nonNull("release string", releaseString);
    if (Integer.toUnsignedLong((int) algorithmType) != algorithmType) {
      throw new IllegalArgumentException("algorithm_type: " + algorithmType + " (expected: a u32)");
    }
  }

  /**
   * The 256 bytes. The release string is cut to 47 bytes as avbtool's {@code 47sx} cuts it (a
   * character split by the cut keeps its first bytes, as in avbtool).
   */
  public byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(SIZE);
    b.put(MAGIC)
        .putInt(requiredLibavbVersionMajor)
        .putInt(requiredLibavbVersionMinor)
        .putLong(authenticationDataBlockSize)
        .putLong(auxiliaryDataBlockSize)
        .putInt((int) algorithmType)
        .putLong(hashOffset)
        .putLong(hashSize)
        .putLong(signatureOffset)
        .putLong(signatureSize)
        .putLong(publicKeyOffset)
        .putLong(publicKeySize)
        .putLong(publicKeyMetadataOffset)
        .putLong(publicKeyMetadataSize)
        .putLong(descriptorsOffset)
        .putLong(descriptorsSize)
        .putLong(rollbackIndex)
        .putInt(flags)
        .putInt(rollbackIndexLocation);
    byte[] release = releaseString.getBytes(StandardCharsets.UTF_8);
    b.put(release, 0, Math.min(release.length, RELEASE_STRING_SIZE - 1));
    return b.array();
  }

  /**
   * The header in {@code b[off, off + 256)}, with the checks of libavb's {@code
   * avb_vbmeta_image_verify} that need only the header: the magic, version 1.x with x at most 3, a
   * NUL-terminated release string, both blocks a multiple of 64, hash and signature inside the
   * authentication block, key and key metadata inside the auxiliary block (no overflow).
   */
  public static VbmetaHeader parse(byte[] b, int off) throws AvbFormatException {
    if (off < 0 || b.length - off < SIZE) {
      throw new AvbFormatException(
          "vbmeta header: " + Math.max(0, b.length - Math.max(off, 0)) + " bytes (expected: 256)");
    }
    if (!Arrays.equals(b, off, off + 4, MAGIC, 0, 4)) {
      throw new AvbFormatException("vbmeta magic: not 'AVB0'");
    }
    ByteBuffer h = ByteBuffer.wrap(b, off, SIZE).slice();
    int major = h.getInt(4);
    int minor = h.getInt(8);
    if (major != LIBAVB_VERSION_MAJOR || Integer.compareUnsigned(minor, LIBAVB_VERSION_MINOR) > 0) {
      throw new AvbFormatException(
          "vbmeta required libavb version: "
              + Integer.toUnsignedString(major)
              + "."
              + Integer.toUnsignedString(minor)
              + " (expected: at most "
              + LIBAVB_VERSION_MAJOR
              + "."
              + LIBAVB_VERSION_MINOR
              + ")");
    }
    if (h.get(RELEASE_STRING_OFFSET + RELEASE_STRING_SIZE - 1) != 0) {
      throw new AvbFormatException("vbmeta release string: no NUL in its 48 bytes");
    }
    int len = 0;
    while (h.get(RELEASE_STRING_OFFSET + len) != 0) {
      len++;
    }
    VbmetaHeader header =
        new VbmetaHeader(
            major,
            minor,
            h.getLong(12),
            h.getLong(20),
            Layout.u32(h, 28),
            h.getLong(32),
            h.getLong(40),
            h.getLong(48),
            h.getLong(56),
            h.getLong(64),
            h.getLong(72),
            h.getLong(80),
            h.getLong(88),
            h.getLong(96),
            h.getLong(104),
            h.getLong(112),
            h.getInt(120),
            h.getInt(124),
            new String(b, off + RELEASE_STRING_OFFSET, len, StandardCharsets.UTF_8));
    header.checkBlocks();
    return header;
  }

  private void checkBlocks() throws AvbFormatException {
    if ((authenticationDataBlockSize & 63) != 0 || (auxiliaryDataBlockSize & 63) != 0) {
      throw new AvbFormatException(
          "vbmeta block sizes: auth "
              + Long.toUnsignedString(authenticationDataBlockSize)
              + ", aux "
              + Long.toUnsignedString(auxiliaryDataBlockSize)
              + " (expected: multiples of 64)");
    }
    inside("hash", hashOffset, hashSize, "authentication", authenticationDataBlockSize);
    inside(
        "signature", signatureOffset, signatureSize, "authentication", authenticationDataBlockSize);
    inside("public key", publicKeyOffset, publicKeySize, "auxiliary", auxiliaryDataBlockSize);
    if (publicKeyMetadataSize != 0) {
      inside(
          "public key metadata",
          publicKeyMetadataOffset,
          publicKeyMetadataSize,
          "auxiliary",
          auxiliaryDataBlockSize);
    }
  }

  /** libavb's overflow-safe "[offset, offset + size) lies in the block". */
  static void inside(String what, long offset, long size, String block, long blockSize)
      throws AvbFormatException {
    long end = offset + size;
    if (Long.compareUnsigned(end, offset) < 0 || Long.compareUnsigned(end, blockSize) > 0) {
      throw new AvbFormatException(
          "vbmeta "
              + what
              + " ["
              + Long.toUnsignedString(offset)
              + ", +"
              + Long.toUnsignedString(size)
              + ") (expected: inside the "
              + Long.toUnsignedString(blockSize)
              + "-byte "
              + block
              + " block)");
    }
  }
}
