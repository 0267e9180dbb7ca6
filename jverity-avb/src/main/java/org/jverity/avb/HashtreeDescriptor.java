package org.jverity.avb;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A dm-verity hashtree (tag 1): the tree and FEC appended to a partition, and its root.
 *
 * <pre>
 * 16 dm_verity_version u32   20 image_size u64   28 tree_offset u64   36 tree_size u64
 * 44 data_block_size u32     48 hash_block_size u32   52 fec_num_roots u32
 * 56 fec_offset u64          64 fec_size u64     72 hash_algorithm char[32]
 * 104 partition_name_len u32 108 salt_len u32    112 root_digest_len u32   116 flags u32
 * 120 reserved[60]           180 name ‖ salt ‖ root digest ‖ pad to 8
 * </pre>
 *
 * @param imageSize data bytes covered, a whole number of data blocks
 * @param fecNumRoots 0 when there is no FEC
 * @param rootDigest empty for a persistent root digest (libavb 1.1)
 */
public record HashtreeDescriptor(
    int dmVerityVersion,
    long imageSize,
    long treeOffset,
    long treeSize,
    int dataBlockSize,
    int hashBlockSize,
    int fecNumRoots,
    long fecOffset,
    long fecSize,
    String hashAlgorithm,
    String partitionName,
    byte[] salt,
    byte[] rootDigest,
    int flags)
    implements Descriptor {
  public static final long TAG = 1;
  public static final int FLAG_DO_NOT_USE_AB = 1, FLAG_CHECK_AT_MOST_ONCE = 2;
  static final int FIXED_SIZE = 180;

  public HashtreeDescriptor {
    DescriptorFrame.checkAlgorithm("hashtree", hashAlgorithm);
    DescriptorFrame.nonNull("hashtree partition name", partitionName);
    salt = DescriptorFrame.nonNull("hashtree salt", salt).clone();
    rootDigest = DescriptorFrame.nonNull("hashtree root digest", rootDigest).clone();
    if (imageSize < 0 || treeOffset < 0 || treeSize < 0 || fecOffset < 0 || fecSize < 0) {
      throw new IllegalArgumentException(
          "hashtree descriptor: image size "
              + Long.toUnsignedString(imageSize)
              + ", tree "
              + Long.toUnsignedString(treeOffset)
              + " +"
              + Long.toUnsignedString(treeSize)
              + ", FEC "
              + Long.toUnsignedString(fecOffset)
              + " +"
              + Long.toUnsignedString(fecSize)
              + " (expected: each below 2^63)");
    }
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
  public byte[] rootDigest() {
    return rootDigest.clone();
  }

  @Override
  public byte[] encode() {
    byte[] name = Layout.utf8(partitionName);
    ByteBuffer b =
        DescriptorFrame.create(
            TAG, FIXED_SIZE - HEADER_SIZE + name.length + salt.length + rootDigest.length);
    b.putInt(dmVerityVersion)
        .putLong(imageSize)
        .putLong(treeOffset)
        .putLong(treeSize)
        .putInt(dataBlockSize)
        .putInt(hashBlockSize)
        .putInt(fecNumRoots)
        .putLong(fecOffset)
        .putLong(fecSize)
        .put(Arrays.copyOf(hashAlgorithm.getBytes(StandardCharsets.US_ASCII), 32))
        .putInt(name.length)
        .putInt(salt.length)
        .putInt(rootDigest.length)
        .putInt(flags)
        .position(FIXED_SIZE);
    b.put(name).put(salt).put(rootDigest);
    return b.array();
  }

  static HashtreeDescriptor decode(byte[] b, int off, int nbf) throws AvbFormatException {
    ByteBuffer d = DescriptorFrame.open("hashtree", b, off, nbf, FIXED_SIZE);
    long nameLen = Layout.u32(d, 104);
    long saltLen = Layout.u32(d, 108);
    long digestLen = Layout.u32(d, 112);
    DescriptorFrame.fits("hashtree", nbf, FIXED_SIZE, nameLen, saltLen, digestLen);
    int n = (int) nameLen, s = (int) saltLen, r = (int) digestLen;
    return new HashtreeDescriptor(
        d.getInt(16),
        d.getLong(20),
        d.getLong(28),
        d.getLong(36),
        d.getInt(44),
        d.getInt(48),
        d.getInt(52),
        d.getLong(56),
        d.getLong(64),
        DescriptorFrame.ascii(d, 72, 32),
        Layout.utf8(b, off + FIXED_SIZE, n, "hashtree partition name"),
        DescriptorFrame.bytes(d, FIXED_SIZE + n, s),
        DescriptorFrame.bytes(d, FIXED_SIZE + n + s, r),
        d.getInt(116));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HashtreeDescriptor h
        && dmVerityVersion == h.dmVerityVersion
        && imageSize == h.imageSize
        && treeOffset == h.treeOffset
        && treeSize == h.treeSize
        && dataBlockSize == h.dataBlockSize
        && hashBlockSize == h.hashBlockSize
        && fecNumRoots == h.fecNumRoots
        && fecOffset == h.fecOffset
        && fecSize == h.fecSize
        && hashAlgorithm.equals(h.hashAlgorithm)
        && partitionName.equals(h.partitionName)
        && Arrays.equals(salt, h.salt)
        && Arrays.equals(rootDigest, h.rootDigest)
        && flags == h.flags;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        imageSize, treeOffset, treeSize, fecOffset, partitionName, Arrays.hashCode(rootDigest));
  }

  @Override
  public String toString() {
    return "HashtreeDescriptor["
        + partitionName
        + ", "
        + hashAlgorithm
        + ", image "
        + imageSize
        + ", tree "
        + treeOffset
        + " +"
        + treeSize
        + ", FEC "
        + fecNumRoots
        + " roots "
        + fecOffset
        + " +"
        + fecSize
        + ", root "
        + HexFormat.of().formatHex(rootDigest)
        + "]";
  }
}
