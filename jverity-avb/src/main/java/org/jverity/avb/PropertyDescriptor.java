package org.jverity.avb;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A property (tag 0): a UTF-8 key and a value that may be binary ({@code --prop_from_file}).
 * Layout: {@code u64 key_num_bytes @16, u64 value_num_bytes @24}, then key ‖ NUL ‖ value ‖ NUL.
 */
public record PropertyDescriptor(String key, byte[] value) implements Descriptor {
  public static final long TAG = 0;
  static final int FIXED_SIZE = 32;

  public PropertyDescriptor {
    DescriptorFrame.nonNull("property key", key);
    value = DescriptorFrame.nonNull("property value", value).clone();
  }

  /** A text property, as {@code --prop key:value} gives it. */
  public static PropertyDescriptor of(String key, String value) {
    return new PropertyDescriptor(key, Layout.utf8(value));
  }

  @Override
  public long tag() {
    return TAG;
  }

  @Override
  public byte[] value() {
    return value.clone();
  }

  @Override
  public byte[] encode() {
    byte[] k = Layout.utf8(key);
    ByteBuffer b =
        DescriptorFrame.create(TAG, FIXED_SIZE - HEADER_SIZE + k.length + 1 + value.length + 1);
    b.putLong(k.length).putLong(value.length).put(k).put((byte) 0).put(value);
    return b.array();
  }

  static PropertyDescriptor decode(byte[] b, int off, int nbf) throws AvbFormatException {
    ByteBuffer d = DescriptorFrame.open("property", b, off, nbf, FIXED_SIZE);
    long keyLen = d.getLong(16);
    long valueLen = d.getLong(24);
    if (keyLen < 0 || valueLen < 0 || keyLen > nbf || valueLen > nbf) {
      throw new AvbFormatException(
          "property descriptor: key "
              + Long.toUnsignedString(keyLen)
              + " and value "
              + Long.toUnsignedString(valueLen)
              + " bytes (expected: within num_bytes_following "
              + nbf
              + ")");
    }
    DescriptorFrame.fits("property", nbf, FIXED_SIZE, keyLen, 1, valueLen, 1);
    int k = (int) keyLen;
    String key = Layout.utf8(b, off + FIXED_SIZE, k, "property key");
    return new PropertyDescriptor(
        key, DescriptorFrame.bytes(d, FIXED_SIZE + k + 1, (int) valueLen));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PropertyDescriptor p && key.equals(p.key) && Arrays.equals(value, p.value);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, Arrays.hashCode(value));
  }

  @Override
  public String toString() {
    return "PropertyDescriptor[" + key + " -> " + value.length + " bytes]";
  }
}
