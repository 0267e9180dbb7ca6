package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jverity.avb.hashtree.AvbTreeGeometry;
import org.jverity.format.VerityParameterException;
import org.jverity.io.AtomicOutput;

/**
 * avbtool's {@code make_vbmeta_image}: a vbmeta image of its own (the {@code vbmeta} partition),
 * holding chain descriptors and descriptors copied from other images, zero-padded to a multiple of
 * {@code paddingSize} when not 0. Written beside {@code output} and renamed over it.
 *
 * @param output the vbmeta image written
 * @param paddingSize pad to a multiple of this many bytes; 0 for none
 * @param vbmeta what it holds and how it is signed
 */
public record MakeVbmetaImage(Path output, long paddingSize, VbmetaOptions vbmeta) {
  public MakeVbmetaImage {
    if (paddingSize < 0) {
      throw new VerityParameterException(
          "--padding_size: " + paddingSize + " (expected: 0 or more)");
    }
    if (vbmeta == null) {
      vbmeta = VbmetaOptions.none();
    }
  }

  /** {@code --print_required_libavb_version}: included images raise it to their own minimum. */
  public String requiredLibavbVersion() throws IOException {
    return "1." + VbmetaAssembler.prepare(vbmeta).requiredMinor(0);
  }

  /** Builds the image and writes it; returns the blob (unpadded). */
  public byte[] apply() throws IOException {
    if (output == null) {
      throw new VerityParameterException("--output: missing (expected: the file to write)");
    }
    byte[] blob = VbmetaAssembler.prepare(vbmeta).build(List.of(), null, 0);
    AtomicOutput.write(output, padded(blob, paddingSize));
    return blob;
  }

  /** {@code blob} zero-padded to a multiple of {@code paddingSize} (0: as it is). */
  static byte[] padded(byte[] blob, long paddingSize) {
    if (paddingSize <= 0) {
      return blob;
    }
    long padded = AvbTreeGeometry.roundUp(blob.length, paddingSize);
    if (padded > Integer.MAX_VALUE - 8) {
      throw new VerityParameterException(
          "--padding_size: " + paddingSize + " (expected: a size the vbmeta can be padded to)");
    }
    byte[] out = new byte[(int) padded];
    System.arraycopy(blob, 0, out, 0, blob.length);
    return out;
  }
}
