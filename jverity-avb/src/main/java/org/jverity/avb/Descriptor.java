package org.jverity.avb;

/**
 * One vbmeta descriptor: {@code u64 tag, u64 num_bytes_following}, then the payload, zero-padded so
 * that {@code num_bytes_following} is a multiple of 8 (libavb refuses any other length).
 */
public sealed interface Descriptor
    permits PropertyDescriptor,
        HashtreeDescriptor,
        HashDescriptor,
        KernelCmdlineDescriptor,
        ChainPartitionDescriptor,
        UnknownDescriptor {
  /** The tag/length header's bytes. */
  int HEADER_SIZE = 16;

  /** The descriptor's tag: 0 property, 1 hashtree, 2 hash, 3 kernel cmdline, 4 chain partition. */
  long tag();

  /** The descriptor as avbtool encodes it: tag, num_bytes_following, payload, zero pad to 8. */
  byte[] encode();
}
