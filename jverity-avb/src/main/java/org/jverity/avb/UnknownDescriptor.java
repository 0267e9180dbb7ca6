package org.jverity.avb;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A descriptor of a tag this code does not know, kept as its payload so that it re-encodes as it
 * was (avbtool does the same).
 */
public record UnknownDescriptor(long tag, byte[] payload) implements Descriptor {
  public UnknownDescriptor {
    if (tag >= PropertyDescriptor.TAG && tag <= ChainPartitionDescriptor.TAG) {
      // its bytes would parse back as that descriptor, or not at all
      throw new IllegalArgumentException(
          "unknown descriptor tag: " + tag + " (expected: none of the known tags 0..4)");
    }
    payload = DescriptorFrame.nonNull("descriptor payload", payload).clone();
  }

  @Override
  public byte[] payload() {
    return payload.clone();
  }

  @Override
  public byte[] encode() {
    ByteBuffer b = DescriptorFrame.create(tag, payload.length);
    b.put(payload);
    return b.array();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UnknownDescriptor u && tag == u.tag && Arrays.equals(payload, u.payload);
  }

  @Override
  public int hashCode() {
    return Objects.hash(tag, Arrays.hashCode(payload));
  }

  @Override
  public String toString() {
    return "UnknownDescriptor[tag "
        + Long.toUnsignedString(tag)
        + ", "
        + payload.length
        + " bytes]";
  }
}
