package org.jverity.avb;

import java.nio.ByteBuffer;

/**
 * A kernel command-line fragment (tag 3): {@code u32 flags @16, u32 kernel_cmdline_length @20},
 * then the UTF-8 text, no NUL.
 */
public record KernelCmdlineDescriptor(int flags, String kernelCmdline) implements Descriptor {
  public static final long TAG = 3;
  public static final int FLAG_USE_ONLY_IF_HASHTREE_NOT_DISABLED = 1;
  public static final int FLAG_USE_ONLY_IF_HASHTREE_DISABLED = 2;
  static final int FIXED_SIZE = 24;

  public KernelCmdlineDescriptor {
    DescriptorFrame.nonNull("kernel cmdline", kernelCmdline);
  }

  @Override
  public long tag() {
    return TAG;
  }

  @Override
  public byte[] encode() {
    byte[] c = Layout.utf8(kernelCmdline);
    ByteBuffer b = DescriptorFrame.create(TAG, FIXED_SIZE - HEADER_SIZE + c.length);
    b.putInt(flags).putInt(c.length).put(c);
    return b.array();
  }

  static KernelCmdlineDescriptor decode(byte[] b, int off, int nbf) throws AvbFormatException {
    ByteBuffer d = DescriptorFrame.open("kernel cmdline", b, off, nbf, FIXED_SIZE);
    long len = Layout.u32(d, 20);
    DescriptorFrame.fits("kernel cmdline", nbf, FIXED_SIZE, len);
    return new KernelCmdlineDescriptor(
        d.getInt(16), Layout.utf8(b, off + FIXED_SIZE, (int) len, "kernel cmdline"));
  }
}
