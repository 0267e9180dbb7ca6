package org.jverity.avb;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Optional;
import org.jverity.io.BlockDevice;

/**
 * The 64-byte {@code AVBf} footer in a partition's last 64 bytes: where the vbmeta blob is, and how
 * large the image was before avbtool appended anything.
 *
 * <pre>
 * 0  magic "AVBf"      4  version_major (1)   8  version_minor (0)
 * 12 original_image_size (u64)   20 vbmeta_offset (u64)   28 vbmeta_size (u64, unpadded)
 * 36 reserved, 28 zero bytes
 * </pre>
 *
 * @param originalImageSize bytes of the image before avbtool padded it
 * @param vbmetaOffset absolute offset of the vbmeta header
 * @param vbmetaSize header + auth + aux bytes, without the padding to 4096
 */
public record AvbFooter(
    int versionMajor,
    int versionMinor,
    long originalImageSize,
    long vbmetaOffset,
    long vbmetaSize) {
  /** The footer's bytes: the last 64 of the partition. */
  public static final int SIZE = 64;

  /** What avbtool writes at the end: 4032 zeros, then the footer. */
  public static final int BLOCK = 4096;

  /** The footer version avbtool writes and libavb reads (a larger major is refused). */
  public static final int VERSION_MAJOR = 1;

  public static final int VERSION_MINOR = 0;

  private static final byte[] MAGIC = {'A', 'V', 'B', 'f'};

  public AvbFooter {
    if (originalImageSize < 0 || vbmetaOffset < 0 || vbmetaSize < 0) {
      throw new IllegalArgumentException(
          "AVB footer: original size "
              + originalImageSize
              + ", vbmeta offset "
              + vbmetaOffset
              + ", size "
              + vbmetaSize
              + " (expected: each in [0, 2^63))");
    }
  }

  /** A version 1.0 footer, as avbtool writes it. */
  public static AvbFooter of(long originalImageSize, long vbmetaOffset, long vbmetaSize) {
    return new AvbFooter(VERSION_MAJOR, VERSION_MINOR, originalImageSize, vbmetaOffset, vbmetaSize);
  }

  /** The 64 bytes, big-endian, reserved bytes zero. */
  public byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(SIZE);
    b.put(MAGIC)
        .putInt(versionMajor)
        .putInt(versionMinor)
        .putLong(originalImageSize)
        .putLong(vbmetaOffset)
        .putLong(vbmetaSize);
    return b.array();
  }

  /**
   * The footer in {@code b[off, off + 64)}, checked as libavb's {@code
   * avb_footer_validate_and_byteswap} checks it: the magic and {@code version_major <= 1} (the
   * minor and the reserved bytes are not checked).
   */
  public static AvbFooter parse(byte[] b, int off) throws AvbFormatException {
    if (off < 0 || b.length - off < SIZE) {
      throw new AvbFormatException(
          "AVB footer: " + Math.max(0, b.length - Math.max(off, 0)) + " bytes (expected: 64)");
    }
    if (!hasMagic(b, off)) {
      throw new AvbFormatException("AVB footer magic: not 'AVBf'");
    }
    ByteBuffer f = ByteBuffer.wrap(b, off, SIZE).slice();
    long major = Layout.u32(f, 4);
    if (major > VERSION_MAJOR) {
      throw new AvbFormatException(
          "AVB footer version_major: " + major + " (expected: at most " + VERSION_MAJOR + ")");
    }
    long original = f.getLong(12);
    long offset = f.getLong(20);
    long size = f.getLong(28);
    check("original_image_size", original);
    check("vbmeta_offset", offset);
    check("vbmeta_size", size);
    return new AvbFooter((int) major, f.getInt(8), original, offset, size);
  }

  /**
   * The footer of {@code image}: empty when its last 64 bytes do not start with "AVBf" (a vbmeta
   * partition, or no AVB at all); throws when they do but do not make a valid footer, or when the
   * vbmeta it points at lies outside the image.
   */
  public static Optional<AvbFooter> read(BlockDevice image) throws IOException {
    long size = image.size();
    if (size < SIZE) {
      return Optional.empty();
    }
    byte[] b = new byte[SIZE];
    image.readFully(size - SIZE, b, 0, SIZE);
    if (!hasMagic(b, 0)) {
      return Optional.empty();
    }
    AvbFooter footer;
    try {
      footer = parse(b, 0);
    } catch (AvbFormatException e) {
      throw new AvbFormatException(image.description() + ": " + e.getMessage());
    }
    // libavb reads vbmeta_size bytes at vbmeta_offset from the partition: they must be in it
    if (footer.vbmetaOffset > size || footer.vbmetaSize > size - footer.vbmetaOffset) {
      throw new AvbFormatException(
          image.description()
              + ": AVB footer vbmeta ["
              + footer.vbmetaOffset
              + ", +"
              + footer.vbmetaSize
              + ") (expected: inside the image's "
              + size
              + " bytes)");
    }
    return Optional.of(footer);
  }

  private static boolean hasMagic(byte[] b, int off) {
    return b.length - off >= MAGIC.length
        && b[off] == MAGIC[0]
        && b[off + 1] == MAGIC[1]
        && b[off + 2] == MAGIC[2]
        && b[off + 3] == MAGIC[3];
  }

  private static void check(String field, long value) throws AvbFormatException {
    if (value < 0) {
      throw new AvbFormatException(
          "AVB footer " + field + ": " + Long.toUnsignedString(value) + " (expected: below 2^63)");
    }
  }
}
