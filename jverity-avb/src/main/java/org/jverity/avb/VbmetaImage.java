package org.jverity.avb;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.jverity.io.BlockDevice;

/**
 * A parsed vbmeta blob (header ‖ auth ‖ aux, without the padding to 4096), checked as libavb's
 * {@code avb_vbmeta_image_verify} checks it before any signature: the header's own rules, the
 * blocks within the blob, a known algorithm, a hash of the algorithm's size, and descriptors inside
 * the auxiliary block. Immutable.
 */
public final class VbmetaImage {
  /** libavb's VBMETA_MAX_SIZE: a larger vbmeta is refused, so a read never allocates more. */
  public static final int MAX_SIZE = 64 * 1024;

  private final byte[] blob;
  private final VbmetaHeader header;
  private final AvbAlgorithm algorithm;
  private final List<Descriptor> descriptors;

  private VbmetaImage(
      byte[] blob, VbmetaHeader header, AvbAlgorithm algorithm, List<Descriptor> d) {
    this.blob = blob;
    this.header = header;
    this.algorithm = algorithm;
    this.descriptors = d;
  }

  /**
   * The vbmeta at the start of {@code blob}; bytes after header + auth + aux (padding) are not part
   * of it.
   */
  public static VbmetaImage parse(byte[] blob) throws AvbFormatException {
    VbmetaHeader h = VbmetaHeader.parse(blob, 0);
    long total = VbmetaHeader.SIZE + h.authenticationDataBlockSize();
    if (Long.compareUnsigned(h.authenticationDataBlockSize(), MAX_SIZE) > 0
        || Long.compareUnsigned(h.auxiliaryDataBlockSize(), MAX_SIZE) > 0
        || (total += h.auxiliaryDataBlockSize()) > blob.length) {
      throw new AvbFormatException(
          "vbmeta blocks: header 256 + auth "
              + Long.toUnsignedString(h.authenticationDataBlockSize())
              + " + aux "
              + Long.toUnsignedString(h.auxiliaryDataBlockSize())
              + " bytes (expected: at most the "
              + blob.length
              + " bytes given)");
    }
    if (total > MAX_SIZE) {
      throw new AvbFormatException(
          "vbmeta size: " + total + " bytes (expected: at most " + MAX_SIZE + ")");
    }
    AvbAlgorithm algorithm = AvbAlgorithm.ofType(h.algorithmType());
    if (algorithm != AvbAlgorithm.NONE && h.hashSize() != algorithm.hashSize()) {
      throw new AvbFormatException(
          "vbmeta hash_size: "
              + Long.toUnsignedString(h.hashSize())
              + " (expected: "
              + algorithm.hashSize()
              + " for "
              + algorithm
              + ")");
    }
    VbmetaHeader.inside(
        "descriptors",
        h.descriptorsOffset(),
        h.descriptorsSize(),
        "auxiliary",
        h.auxiliaryDataBlockSize());
    int aux = auxStart(h);
    List<Descriptor> descriptors =
        List.copyOf(
            Descriptors.parse(blob, aux + (int) h.descriptorsOffset(), (int) h.descriptorsSize()));
    byte[] own = blob.length == total ? blob.clone() : Arrays.copyOf(blob, (int) total);
    return new VbmetaImage(own, h, algorithm, descriptors);
  }

  /**
   * The vbmeta of {@code image}: at the footer's offset when there is a footer, else at offset 0 (a
   * vbmeta partition). Reads at most {@link #MAX_SIZE} bytes.
   */
  public static VbmetaImage read(BlockDevice image, AvbFooter footerOrNull) throws IOException {
    long size = image.size();
    long offset = footerOrNull == null ? 0 : footerOrNull.vbmetaOffset();
    long length;
    if (footerOrNull != null) {
      if (footerOrNull.vbmetaSize() > MAX_SIZE) {
        throw new AvbFormatException(
            image.description()
                + ": AVB footer vbmeta_size "
                + footerOrNull.vbmetaSize()
                + " (expected: at most "
                + MAX_SIZE
                + ")");
      }
      length = footerOrNull.vbmetaSize();
      if (offset > size || length > size - offset) {
        throw new AvbFormatException(
            image.description()
                + ": vbmeta ["
                + offset
                + ", +"
                + length
                + ") (expected: inside the image's "
                + size
                + " bytes)");
      }
    } else {
      length = Math.min(size, MAX_SIZE);
    }
    byte[] b = new byte[(int) length];
    image.readFully(offset, b, 0, b.length);
    try {
      return parse(b);
    } catch (AvbFormatException e) {
      throw new AvbFormatException(image.description() + ": " + e.getMessage());
    }
  }

  private static int auxStart(VbmetaHeader h) {
    return VbmetaHeader.SIZE + (int) h.authenticationDataBlockSize();
  }

  private int authStart() {
    return VbmetaHeader.SIZE;
  }

  public VbmetaHeader header() {
    return header;
  }

  public AvbAlgorithm algorithm() {
    return algorithm;
  }

  public List<Descriptor> descriptors() {
    return descriptors;
  }

  /** The embedded public-key blob; empty when unsigned. */
  public byte[] publicKey() {
    return aux(header.publicKeyOffset(), header.publicKeySize());
  }

  public byte[] publicKeyMetadata() {
    return aux(header.publicKeyMetadataOffset(), header.publicKeyMetadataSize());
  }

  public byte[] hash() {
    return auth(header.hashOffset(), header.hashSize());
  }

  public byte[] signature() {
    return auth(header.signatureOffset(), header.signatureSize());
  }

  /** The blob, header ‖ auth ‖ aux: what the vbmeta digest hashes. */
  public byte[] encode() {
    return blob.clone();
  }

  /** Bytes of the blob. */
  public int size() {
    return blob.length;
  }

  /** header ‖ aux: what is hashed and signed. */
  byte[] signedBytes() {
    byte[] signed = new byte[VbmetaHeader.SIZE + (int) header.auxiliaryDataBlockSize()];
    System.arraycopy(blob, 0, signed, 0, VbmetaHeader.SIZE);
    System.arraycopy(
        blob, auxStart(header), signed, VbmetaHeader.SIZE, signed.length - VbmetaHeader.SIZE);
    return signed;
  }

  /**
   * Recomputes the hash and checks the signature with the embedded key, as libavb does; whether
   * that key is trusted is the caller's question.
   *
   * @return false for NONE (not signed), true when hash and signature match
   * @throws AvbVerificationException saying what did not match
   */
  public boolean verifySignature() throws AvbVerificationException {
    return SignatureCheck.verify(this);
  }

  private byte[] aux(long offset, long size) {
    int from = auxStart(header) + (int) offset; // inside the aux block: checked by parse
    return size == 0 ? new byte[0] : Arrays.copyOfRange(blob, from, from + (int) size);
  }

  private byte[] auth(long offset, long size) {
    int from = authStart() + (int) offset;
    return size == 0 ? new byte[0] : Arrays.copyOfRange(blob, from, from + (int) size);
  }

  @Override
  public String toString() {
    return "VbmetaImage["
        + algorithm
        + ", "
        + blob.length
        + " bytes, "
        + descriptors.size()
        + " descriptors]";
  }
}
