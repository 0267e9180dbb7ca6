package org.jverity.avb.verify;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jverity.avb.AvbFooter;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.AvbPublicKey;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.Descriptor;
import org.jverity.avb.HashDescriptor;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.SparseImage;
import org.jverity.avb.VbmetaImage;
import org.jverity.avb.hashtree.AvbHashtree;
import org.jverity.format.VerityParams;
import org.jverity.image.FecSource;
import org.jverity.image.TrustedRoot;
import org.jverity.io.BlockDevice;

/**
 * An AVB partition image resolved to what dm-verity needs, its vbmeta checked against the trust
 * first: the verity parameters (v1, no superblock, the data blocks, the tree at {@code tree_offset}
 * in the same image), the root digest, and the FEC, all from its one hashtree descriptor. What is
 * served or read verified is {@code [0, imageSize)}.
 *
 * @param footer the image's AvbFooter
 * @param vbmeta its vbmeta, whose signature and key were checked
 * @param hashtree its only hashtree descriptor
 * @param params the tree's parameters, as veritysetup would take them for this image
 * @param rootDigest the root the tree must hash to
 * @param fecRoots parity bytes per RS codeword; 0 when the image has no FEC
 * @param fecOffset where the FEC starts in the image; 0 when there is none
 * @param imageSize bytes of data the tree covers
 * @param signed false when the vbmeta is unsigned and the trust accepted that
 */
public record AvbPartition(
    AvbFooter footer,
    VbmetaImage vbmeta,
    HashtreeDescriptor hashtree,
    VerityParams params,
    byte[] rootDigest,
    int fecRoots,
    long fecOffset,
    long imageSize,
    boolean signed) {

  public AvbPartition {
    Objects.requireNonNull(footer, "footer");
    Objects.requireNonNull(vbmeta, "vbmeta");
    Objects.requireNonNull(hashtree, "hashtree");
    Objects.requireNonNull(params, "params");
    rootDigest = rootDigest.clone();
    if (fecRoots < 0 || fecOffset < 0 || imageSize != params.dataSize()) {
      throw new IllegalArgumentException(
          "AVB partition: fec roots "
              + fecRoots
              + ", fec offset "
              + fecOffset
              + ", image size "
              + imageSize
              + " (expected: non-negative, and the size the parameters cover, "
              + params.dataSize()
              + ")");
    }
  }

  /**
   * Reads the footer and the vbmeta, checks the signature and the key (or that an unsigned image is
   * accepted), the flags, then the hashtree descriptor (exactly one) against the image. Reads only
   * the footer, the vbmeta (at most 64 KiB) and the tree's first bytes.
   *
   * @param location names the image in messages (its path)
   * @param keyOption how the user gives the trusted key, named in a refusal
   * @throws AvbVerificationException saying, in one line, why a device would refuse the image
   * @throws AvbFormatException when it is no AVB partition with a hashtree: no footer, no single
   *     hashtree descriptor, or a footer or vbmeta libavb cannot parse
   */
  public static AvbPartition open(
      BlockDevice image, String location, AvbTrust trust, KeyOption keyOption) throws IOException {
    if (SparseImage.is(image)) { // its last chunk may end with the footer, at the wrong offsets
      throw new AvbFormatException(SparseImage.refusal(location));
    }
    Optional<AvbFooter> maybeFooter = AvbFooter.read(image);
    if (maybeFooter.isEmpty()) {
      throw new AvbFormatException(
          location
              + ": no AVB footer (its last 64 bytes do not start with AVBf): a partition with a"
              + " hashtree ends with one; a vbmeta image holds no data to verify");
    }
    AvbFooter footer = maybeFooter.get();
    VbmetaImage vbmeta = VbmetaImage.read(image, footer);
    boolean signed = VbmetaTrust.verifySignature(location, vbmeta);
    if (signed) {
      if (!trust.hasKey()) {
        throw new AvbVerificationException(
            "vbmeta of "
                + location
                + " is signed by key sha1 "
                + AvbPublicKey.sha1(vbmeta.publicKey())
                + ": give that key with "
                + keyOption.name()
                + " ("
                + keyOption.unsignedValue()
                + " accepts only an unsigned image)");
      }
      if (!trust.trusts(vbmeta.publicKey())) {
        throw VbmetaTrust.untrustedKey(
            location, vbmeta.publicKey(), trust.publicKeyBlob(), keyOption.name());
      }
    } else if (!trust.acceptUnsigned()) {
      throw VbmetaTrust.unsigned(
          location, keyOption.name() + " " + keyOption.unsignedValue() + " accepts it");
    }
    VbmetaTrust.requireVerificationEnabled(location, vbmeta.header());
    for (Descriptor other : vbmeta.descriptors()) {
      if (other instanceof HashDescriptor h) { // a device refuses the whole vbmeta for one
        HashDescriptorRules.check(h.partitionName() + ": hash descriptor in " + location, h);
      }
    }
    HashtreeDescriptor d = onlyHashtree(location, vbmeta.descriptors());
    String where = location + ": hashtree descriptor (" + d.partitionName() + ")";
    CheckedHashtree checked = CheckedHashtree.check(where, d, footer.vbmetaOffset());
    if (!checked.treePresent()) {
      throw new AvbVerificationException(
          where
              + ": tree_size 0 where the data needs "
              + checked.geometry().treeSize()
              + " bytes of tree (built with --no_hashtree): nothing to verify the data against");
    }
    if (checked.geometry().treeSize() > 0 && AvbHashtree.isZeroed(image, d.treeOffset())) {
      throw new AvbVerificationException(
          where + ": the tree is zeroed (zero_hashtree): every read would fail verification");
    }
    VerityParams params = checked.geometry().verityParams(d.salt(), d.treeOffset());
    boolean fec = checked.geometry().fecRoots() > 0;
    return new AvbPartition(
        footer,
        vbmeta,
        d,
        params,
        d.rootDigest(),
        fec ? d.fecNumRoots() : 0,
        fec ? d.fecOffset() : 0,
        d.imageSize(),
        signed);
  }

  /** The one hashtree descriptor; none or several is a one-line refusal. */
  private static HashtreeDescriptor onlyHashtree(String location, List<Descriptor> descriptors)
      throws AvbFormatException {
    List<HashtreeDescriptor> found = new ArrayList<>();
    for (Descriptor d : descriptors) {
      if (d instanceof HashtreeDescriptor h) {
        found.add(h);
      }
    }
    if (found.size() == 1) {
      return found.getFirst();
    }
    if (found.isEmpty()) {
      throw new AvbFormatException(
          "vbmeta of "
              + location
              + " has no hashtree descriptor (a hash-footer partition such as boot is checked"
              + " whole, by verify_image)");
    }
    List<String> names = new ArrayList<>();
    for (HashtreeDescriptor h : found) {
      names.add(h.partitionName());
    }
    throw new AvbFormatException(
        "vbmeta of "
            + location
            + " has "
            + found.size()
            + " hashtree descriptors ("
            + String.join(", ", names)
            + "): which one covers this image is ambiguous");
  }

  @Override
  public byte[] rootDigest() {
    return rootDigest.clone();
  }

  /**
   * What the image is verified against, as dm-verity takes it: the descriptor's parameters and root
   * digest, trusted because the vbmeta that holds them verified ({@link #open}). Nothing of it is
   * read again from the image.
   */
  public TrustedRoot trustedRoot() {
    return TrustedRoot.of(params, rootDigest);
  }

  /**
   * The parity the descriptor places on {@code device}, this partition image (its location, as the
   * image was opened): {@code fec_num_roots} roots at {@code fec_offset}, over {@code [0,
   * fec_offset)}; null when the image has no FEC.
   */
  public FecSource fec(String device) {
    return fecRoots > 0 ? new FecSource(device, fecOffset, fecRoots) : null;
  }

  /**
   * The table libfs_avb builds for this partition on {@code device} (enforcing mode).
   *
   * @throws AvbVerificationException when this record was made around a descriptor whose numbers
   *     make no table ({@link #open} refuses those first)
   */
  public String dmVerityTable(String device) throws AvbVerificationException {
    return DmVerityTable.of(hashtree.partitionName() + ": hashtree descriptor", hashtree)
        .libfsAvb(device);
  }
}
