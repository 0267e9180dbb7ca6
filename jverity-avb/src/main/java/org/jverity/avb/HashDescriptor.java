package org.jverity.avb;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A whole-image digest (tag 2): {@code digest = H(salt ‖ image[0, imageSize))}.
 *
 * <pre>
 * 16 image_size u64   24 hash_algorithm char[32]   56 partition_name_len u32   60 salt_len u32
 * 64 digest_len u32   68 flags u32   72 reserved[60]   132 name ‖ salt ‖ digest ‖ pad to 8
 * </pre>
 *
 * @param imageSize the unpadded image size
 * @param digest empty for a persistent digest (libavb 1.1)
 */
public record HashDescriptor(
    long imageSize,
    String hashAlgorithm,
    String partitionName,
    byte[] salt,
    byte[] digest,
    int flags)
    implements Descriptor {
  public static final long TAG = 2;
  public static final int FLAG_DO_NOT_USE_AB = 1;
  static final int FIXED_SIZE = 132;

  public HashDescriptor {
    if (imageSize < 0) {
      throw new IllegalArgumentException(
          "hash descriptor image size: "
              + Long.toUnsignedString(imageSize)
              + " (expected: below 2^63)");
    }
    DescriptorFrame.checkAlgorithm("hash", hashAlgorithm);
    DescriptorFrame.nonNull("hash partition name", partitionName);
    salt = DescriptorFrame.nonNull("hash salt", salt).clone();
    digest = DescriptorFrame.nonNull("hash digest", digest).clone();
  }

  @Override
  public long tag() {
    return TAG;
  }

  @Override
  public byte[] salt() {
    return salt.clone();
  }

  @Override
  public byte[] digest() {
    return digest.clone();
  }

  @Override
  public byte[] encode() {
    byte[] name = Layout.utf8(partitionName);
    ByteBuffer b =
        DescriptorFrame.create(
            TAG, FIXED_SIZE - HEADER_SIZE + name.length + salt.length + digest.length);
    b.putLong(imageSize)
        .put(Arrays.copyOf(hashAlgorithm.getBytes(StandardCharsets.US_ASCII), 32))
        .putInt(name.length)
        .putInt(salt.length)
        .putInt(digest.length)
        .putInt(flags)
        .position(FIXED_SIZE);
    b.put(name).put(salt).put(digest);
    return b.array();
  }

  static HashDescriptor decode(byte[] b, int off, int nbf) throws AvbFormatException {
    ByteBuffer d = DescriptorFrame.open("hash", b, off, nbf, FIXED_SIZE);
    long nameLen = Layout.u32(d, 56);
    long saltLen = Layout.u32(d, 60);
    long digestLen = Layout.u32(d, 64);
    DescriptorFrame.fits("hash", nbf, FIXED_SIZE, nameLen, saltLen, digestLen);
    int n = (int) nameLen, s = (int) saltLen, g = (int) digestLen;
    return new HashDescriptor(
        d.getLong(16),
        DescriptorFrame.ascii(d, 24, 32),
        Layout.utf8(b, off + FIXED_SIZE, n, "hash partition name"),
        DescriptorFrame.bytes(d, FIXED_SIZE + n, s),
        DescriptorFrame.bytes(d, FIXED_SIZE + n + s, g),
        d.getInt(68));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HashDescriptor h
        && imageSize == h.imageSize
        && hashAlgorithm.equals(h.hashAlgorithm)
        && partitionName.equals(h.partitionName)
        && Arrays.equals(salt, h.salt)
        && Arrays.equals(digest, h.digest)
        && flags == h.flags;
  }

  @Override
  public int hashCode() {
    return Objects.hash(imageSize, partitionName, Arrays.hashCode(digest));
  }

  @Override
  public String toString() {
    return "HashDescriptor["
        + partitionName
        + ", "
        + hashAlgorithm
        + ", image "
        + imageSize
        + ", digest "
        + HexFormat.of().formatHex(digest)
        + "]";
  }
}
