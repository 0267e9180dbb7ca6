package org.jverity.ddi;

import java.io.IOException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Objects;
import org.jverity.format.VerityParams;
import org.jverity.image.Superblocks;
import org.jverity.image.TrustedRoot;
import org.jverity.io.BlockDevice;
import org.jverity.sig.InvalidSignatureException;
import org.jverity.sig.RootHashSignature;

/**
 * A DDI's data partition as a verified export serves it: the root (the verity superblock's
 * parameters, placed at the verity partition's offset in the image, and the root hash), the data's
 * range in the image, and what made the root trusted. Immutable.
 *
 * @param choice what systemd-dissect would use
 * @param root the tree's parameters (hash offset: the verity partition's first byte in the image)
 *     and the root hash
 * @param dataOffset the data partition's first byte in the image
 * @param dataLength the bytes the tree covers: its data blocks
 * @param certificate the trusted certificate's file that signed the root hash; null when the root
 *     hash was given
 */
public record ServedPartition(
    Choice choice, TrustedRoot root, long dataOffset, long dataLength, Path certificate) {

  public ServedPartition {
    Objects.requireNonNull(choice, "choice");
    Objects.requireNonNull(root, "root");
  }

  /**
   * What of {@code image} to serve for {@code designator}, its trust established before a block is
   * read: a signature partition's signature made by one of {@code certificates}, or a root hash the
   * caller was given ({@link RootHashSource#OPTION}). A root hash from a sidecar or an unsigned
   * signature partition is no trust at all, and is refused.
   *
   * @throws DdiFormatException when the image has no such partition, or nothing to verify it with
   * @throws InvalidSignatureException when no trusted certificate made the signature, or nothing
   *     establishes trust
   */
  public static ServedPartition resolve(
      BlockDevice image,
      Designator designator,
      String arch,
      Dissection.GivenHashes given,
      TrustedCertificates certificates)
      throws IOException, InvalidSignatureException {
    Dissection d = Dissection.of(image, arch, given);
    Choice c =
        d.choice(designator)
            .orElseThrow(
                () ->
                    new DdiFormatException(
                        image.description()
                            + ": no "
                            + designator.label()
                            + " partition for "
                            + arch));
    if (c.verity() == null || c.rootHash() == null) {
      throw new DdiFormatException(
          image.description()
              + ": "
              + c.data().describe()
              + " cannot be verified ("
              + (c.rootHash() == null
                  ? "no root hash"
                  : "no verity partition matches its root hash")
              + "; 'jverity ddi inspect' says why)");
    }
    Path certificate = null;
    if (c.signed()) {
      if (certificates.certificates().isEmpty()) {
        throw new InvalidSignatureException(
            InvalidSignatureException.Reason.UNTRUSTED_SIGNER,
            c.signaturePartition().describe()
                + ": no trusted certificate (*.crt) to check it with"
                + (certificates.ignored().isEmpty()
                    ? ""
                    : "; " + String.join("; ", certificates.ignored())));
      }
      X509Certificate cert =
          RootHashSignature.verify(c.signature().signature(), c.rootHash(), certificates.x509());
      certificate = certificates.fileOf(cert);
    } else if (c.source() != RootHashSource.OPTION) {
      throw new InvalidSignatureException(
          InvalidSignatureException.Reason.UNTRUSTED_SIGNER,
          image.description()
              + ": the root hash from "
              + c.source().phrase()
              + " is unsigned (expected: a signature partition a trusted certificate signed, or"
              + " the root hash given)");
    }
    int sector = d.gpt().sectorSize();
    long verityOffset = c.verity().entry().offset(sector);
    VerityParams p = Superblocks.params(DdiVerifier.slice(image, c.verity(), sector), 0);
    long dataLength = p.dataBlocks() * p.dataBlockSize();
    if (dataLength > c.data().entry().size(sector)) {
      throw new DdiFormatException(
          c.verity().describe()
              + ": superblock's "
              + p.dataBlocks()
              + " data blocks of "
              + p.dataBlockSize()
              + " bytes (expected: at most the "
              + c.data().entry().size(sector)
              + " bytes of "
              + c.data().describe()
              + ")");
    }
    TrustedRoot root =
        TrustedRoot.of(
            p.toBuilder().hashOffset(verityOffset).build(), HexFormat.of().parseHex(c.rootHash()));
    return new ServedPartition(c, root, c.data().entry().offset(sector), dataLength, certificate);
  }
}
