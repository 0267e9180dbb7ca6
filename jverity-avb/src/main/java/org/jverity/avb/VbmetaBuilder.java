package org.jverity.avb;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.List;

/**
 * A vbmeta blob laid out as avbtool's {@code _generate_vbmeta_blob} lays it out, so that the same
 * inputs give the same bytes:
 *
 * <ul>
 *   <li>aux block = descriptors ‖ public key ‖ public key metadata, zero-padded to 64; {@code
 *       descriptors_offset = 0}, {@code public_key_offset = descriptors_size}, {@code
 *       public_key_metadata_offset = public_key_offset + public_key_size}, even when sizes are 0;
 *   <li>auth block = hash ‖ signature, zero-padded to 64; {@code hash_offset = 0}, {@code
 *       signature_offset = hash_size}; empty for NONE;
 *   <li>the hash and the signature cover header ‖ aux, the header with its final values.
 * </ul>
 *
 * The descriptors go in as given: ordering them as avbtool orders its options is the caller's. Not
 * thread-safe; one builder, one blob at a time.
 */
public final class VbmetaBuilder {
  /** avbtool 1.3.0's release string (get_release_string()). */
  public static final String RELEASE_STRING = "avbtool 1.3.0";

  private final AvbSigner signer;
  private long rollbackIndex;
  private int flags;
  private int rollbackIndexLocation;
  private String releaseString = RELEASE_STRING;
  private int requiredLibavbVersionMinor;
  private List<? extends Descriptor> descriptors = List.of();
  private byte[] publicKeyMetadata = new byte[0];

  /** {@link AvbSigner#NONE} for {@code --algorithm NONE}. */
  public VbmetaBuilder(AvbSigner signer) {
    this.signer = DescriptorFrame.nonNull("signer", signer);
  }

  public VbmetaBuilder rollbackIndex(long v) {
    rollbackIndex = v;
    return this;
  }

  /** The header flags ({@link VbmetaHeader#FLAG_HASHTREE_DISABLED}, ...). */
  public VbmetaBuilder flags(int v) {
    flags = v;
    return this;
  }

  public VbmetaBuilder rollbackIndexLocation(int v) {
    rollbackIndexLocation = v;
    return this;
  }

  /**
   * The release string; the header keeps its first 47 bytes, as avbtool's {@code 47sx} does ({@code
   * --internal_release_string}, or {@link #RELEASE_STRING} + " " + {@code
   * --append_to_release_string}).
   */
  public VbmetaBuilder releaseString(String s) {
    releaseString = DescriptorFrame.nonNull("release string", s);
    return this;
  }

  /** The required libavb minor version (1.0 unless a feature needs more: the caller knows). */
  public VbmetaBuilder requiredLibavbVersionMinor(int minor) {
    if (minor < 0 || minor > VbmetaHeader.LIBAVB_VERSION_MINOR) {
      throw new IllegalArgumentException(
          "required libavb minor version: "
              + minor
              + " (expected: 0.."
              + VbmetaHeader.LIBAVB_VERSION_MINOR
              + ")");
    }
    requiredLibavbVersionMinor = minor;
    return this;
  }

  public VbmetaBuilder descriptors(List<? extends Descriptor> d) {
    descriptors = List.copyOf(d);
    return this;
  }

  /** {@code --public_key_metadata}'s file contents. */
  public VbmetaBuilder publicKeyMetadata(byte[] m) {
    publicKeyMetadata = m.clone();
    return this;
  }

  /** The blob: header ‖ auth ‖ aux (not padded to 4096). */
  public byte[] build() throws GeneralSecurityException, IOException {
    AvbAlgorithm alg = signer.algorithm();
    byte[] encodedDescriptors = Descriptors.encode(descriptors);
    byte[] key = signer.publicKeyBlob();
    if (key.length != alg.publicKeySize()) {
      throw new GeneralSecurityException(
          "public key: "
              + key.length
              + " bytes (expected: "
              + alg.publicKeySize()
              + " for "
              + alg
              + ")");
    }
    int auxSize = Layout.round64(encodedDescriptors.length + key.length + publicKeyMetadata.length);
    if (VbmetaHeader.SIZE + (long) alg.authBlockSize() + auxSize > VbmetaImage.MAX_SIZE) {
      throw new GeneralSecurityException(
          "vbmeta: "
              + (VbmetaHeader.SIZE + alg.authBlockSize() + auxSize)
              + " bytes (expected: at most "
              + VbmetaImage.MAX_SIZE
              + ", libavb's limit)");
    }
    VbmetaHeader header =
        new VbmetaHeader(
            VbmetaHeader.LIBAVB_VERSION_MAJOR,
            requiredLibavbVersionMinor,
            alg.authBlockSize(),
            auxSize,
            alg.type(),
            0,
            alg.hashSize(),
            alg.hashSize(),
            alg.signatureSize(),
            encodedDescriptors.length,
            key.length,
            encodedDescriptors.length + key.length,
            publicKeyMetadata.length,
            0,
            encodedDescriptors.length,
            rollbackIndex,
            flags,
            rollbackIndexLocation,
            releaseString);
    byte[] headerBytes = header.encode();
    ByteArrayOutputStream aux = new ByteArrayOutputStream(auxSize);
    aux.writeBytes(encodedDescriptors);
    aux.writeBytes(key);
    aux.writeBytes(publicKeyMetadata);
    byte[] auxBytes = Arrays.copyOf(aux.toByteArray(), auxSize);

    byte[] auth = new byte[alg.authBlockSize()];
    if (alg != AvbAlgorithm.NONE) {
      byte[] signed = concat(headerBytes, auxBytes);
      if (alg.hashSize() > 0) {
        System.arraycopy(SignatureCheck.digest(alg, signed), 0, auth, 0, alg.hashSize());
      }
      byte[] signature = signer.sign(signed);
      if (signature.length != alg.signatureSize()) {
        throw new GeneralSecurityException(
            alg
                + " signature: "
                + signature.length
                + " bytes (expected: "
                + alg.signatureSize()
                + ")");
      }
      System.arraycopy(signature, 0, auth, alg.hashSize(), signature.length);
    }
    return concat(headerBytes, auth, auxBytes);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
