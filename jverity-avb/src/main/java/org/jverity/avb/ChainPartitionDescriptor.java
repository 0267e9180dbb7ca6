package org.jverity.avb;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A chained partition (tag 4): the partition whose own vbmeta must be signed by {@code publicKey}
 * (an AvbPublicKey blob), and the rollback index location it uses.
 *
 * <pre>
 * 16 rollback_index_location u32   20 partition_name_len u32   24 public_key_len u32
 * 28 flags u32   32 reserved[60]   92 name ‖ public key ‖ pad to 8
 * </pre>
 */
public record ChainPartitionDescriptor(
    int rollbackIndexLocation, String partitionName, byte[] publicKey, int flags)
    implements Descriptor {
  public static final long TAG = 4;
  public static final int FLAG_DO_NOT_USE_AB = 1;
  static final int FIXED_SIZE = 92;

  public ChainPartitionDescriptor {
    DescriptorFrame.nonNull("chain partition name", partitionName);
    publicKey = DescriptorFrame.nonNull("chain partition public key", publicKey).clone();
  }

  @Override
  public long tag() {
    return TAG;
  }

  @Override
  public byte[] publicKey() {
    return publicKey.clone();
  }

  @Override
  public byte[] encode() {
    byte[] name = Layout.utf8(partitionName);
    ByteBuffer b =
        DescriptorFrame.create(TAG, FIXED_SIZE - HEADER_SIZE + name.length + publicKey.length);
    b.putInt(rollbackIndexLocation)
        .putInt(name.length)
        .putInt(publicKey.length)
        .putInt(flags)
        .position(FIXED_SIZE);
    b.put(name).put(publicKey);
    return b.array();
  }

  static ChainPartitionDescriptor decode(byte[] b, int off, int nbf) throws AvbFormatException {
    ByteBuffer d = DescriptorFrame.open("chain partition", b, off, nbf, FIXED_SIZE);
    long nameLen = Layout.u32(d, 20);
    long keyLen = Layout.u32(d, 24);
    DescriptorFrame.fits("chain partition", nbf, FIXED_SIZE, nameLen, keyLen);
    int n = (int) nameLen;
    return new ChainPartitionDescriptor(
        d.getInt(16),
        Layout.utf8(b, off + FIXED_SIZE, n, "chain partition name"),
        DescriptorFrame.bytes(d, FIXED_SIZE + n, (int) keyLen),
        d.getInt(28));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ChainPartitionDescriptor c
        && rollbackIndexLocation == c.rollbackIndexLocation
        && partitionName.equals(c.partitionName)
        && Arrays.equals(publicKey, c.publicKey)
        && flags == c.flags;
  }

  @Override
  public int hashCode() {
    return Objects.hash(rollbackIndexLocation, partitionName, Arrays.hashCode(publicKey), flags);
  }

  @Override
  public String toString() {
    return "ChainPartitionDescriptor["
        + partitionName
        + ", location "
        + rollbackIndexLocation
        + ", key "
        + publicKey.length
        + " bytes, flags "
        + flags
        + "]";
  }
}
