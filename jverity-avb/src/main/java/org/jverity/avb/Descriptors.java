package org.jverity.avb;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** A vbmeta's descriptor array: consecutive descriptors, each a multiple of 8 bytes. */
public final class Descriptors {
  private Descriptors() {}

  /**
   * The descriptors in {@code b[off, off + len)}, framed as libavb's {@code avb_descriptor_foreach}
   * frames them (16-byte header, {@code num_bytes_following} a multiple of 8 and inside the array)
   * and decoded as avbtool decodes them (the variable fields inside {@code num_bytes_following},
   * names UTF-8). Unknown tags are kept as {@link UnknownDescriptor}s.
   */
  public static List<Descriptor> parse(byte[] b, int off, int len) throws AvbFormatException {
    if (off < 0 || len < 0 || off > b.length || len > b.length - off) {
      throw new IllegalArgumentException(
          "descriptors [" + off + ", +" + len + ") of " + b.length + " bytes");
    }
    List<Descriptor> out = new ArrayList<>();
    ByteBuffer buf = ByteBuffer.wrap(b);
    int at = off;
    int end = off + len;
    while (at < end) {
      int left = end - at;
      if (left < Descriptor.HEADER_SIZE) {
        throw new AvbFormatException(
            "descriptor #"
                + out.size()
                + " at +"
                + (at - off)
                + ": "
                + left
                + " bytes left (expected: a 16-byte header)");
      }
      long tag = buf.getLong(at);
      long nbf = buf.getLong(at + 8);
      if (nbf < 0 || nbf > left - Descriptor.HEADER_SIZE) {
        throw new AvbFormatException(
            "descriptor #"
                + out.size()
                + " num_bytes_following: "
                + Long.toUnsignedString(nbf)
                + " (expected: at most the "
                + (left - Descriptor.HEADER_SIZE)
                + " bytes left in the descriptor array)");
      }
      if (nbf % 8 != 0) {
        throw new AvbFormatException(
            "descriptor #"
                + out.size()
                + " num_bytes_following: "
                + nbf
                + " (expected: a multiple of 8)");
      }
      out.add(decode(tag, b, at, (int) nbf, out.size()));
      at += Descriptor.HEADER_SIZE + (int) nbf;
    }
    return out;
  }

  private static Descriptor decode(long tag, byte[] b, int at, int nbf, int index)
      throws AvbFormatException {
    try {
      if (tag == PropertyDescriptor.TAG) {
        return PropertyDescriptor.decode(b, at, nbf);
      } else if (tag == HashtreeDescriptor.TAG) {
        return HashtreeDescriptor.decode(b, at, nbf);
      } else if (tag == HashDescriptor.TAG) {
        return HashDescriptor.decode(b, at, nbf);
      } else if (tag == KernelCmdlineDescriptor.TAG) {
        return KernelCmdlineDescriptor.decode(b, at, nbf);
      } else if (tag == ChainPartitionDescriptor.TAG) {
        return ChainPartitionDescriptor.decode(b, at, nbf);
      }
      byte[] payload = new byte[nbf];
      System.arraycopy(b, at + Descriptor.HEADER_SIZE, payload, 0, nbf);
      return new UnknownDescriptor(tag, payload);
    } catch (AvbFormatException e) {
      throw new AvbFormatException("descriptor #" + index + ": " + e.getMessage());
    } catch (IllegalArgumentException e) { // a record's own check: a field no encoder writes
      throw new AvbFormatException("descriptor #" + index + ": " + e.getMessage());
    }
  }

  /** The descriptors' encodings, concatenated in order. */
  public static byte[] encode(List<? extends Descriptor> descriptors) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Descriptor d : descriptors) {
      out.writeBytes(d.encode());
    }
    return out.toByteArray();
  }
}
