package org.jverity.ddi;

import java.io.IOException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import org.jverity.ddi.gpt.Gpt;
import org.jverity.format.VerityParams;
import org.jverity.image.Superblocks;
import org.jverity.io.BlockDevice;
import org.jverity.io.SliceDevice;
import org.jverity.sig.InvalidSignatureException;
import org.jverity.sig.RootHashSignature;
import org.jverity.tree.CheckReport;
import org.jverity.tree.ProgressListener;
import org.jverity.tree.TreeChecker;

/**
 * Checks what systemd-dissect would use of a DDI, the way its userspace path would before
 * activating it, and then every block: the root hash's signature against the trusted certificates
 * (when the image is signed), the verity partition's superblock, and the whole tree of the data
 * partition against it with the core's checker. Stateless.
 */
public final class DdiVerifier {
  private DdiVerifier() {}

  /**
   * Verifies {@code choice} of {@code image}.
   *
   * @param certificates checked when the choice is signed; ignored when it is not
   * @throws DdiFormatException when there is nothing to verify (no verity partition or no root
   *     hash) or the superblock does not fit the partitions
   * @throws InvalidSignatureException when the signature is made by no trusted certificate
   */
  public static VerifyReport verify(
      BlockDevice image,
      Gpt gpt,
      Choice choice,
      TrustedCertificates certificates,
      ProgressListener progress)
      throws IOException, InvalidSignatureException {
    if (choice.verity() == null || choice.rootHash() == null) {
      throw new DdiFormatException(
          choice.designator().label()
              + ": nothing to verify ("
              + (choice.verity() == null ? "no verity partition matches" : "no root hash")
              + "; 'jverity ddi inspect' says why)");
    }
    Path certificate = null;
    if (choice.signed()) {
      if (certificates.certificates().isEmpty()) {
        throw new InvalidSignatureException(
            InvalidSignatureException.Reason.UNTRUSTED_SIGNER,
            choice.signaturePartition().describe()
                + ": signed, but no trusted certificate (no *.crt in the verity.d directories)");
      }
      X509Certificate c =
          RootHashSignature.verify(
              choice.signature().signature(), choice.rootHash(), certificates.x509());
      certificate = certificates.fileOf(c);
    }
    int sector = gpt.sectorSize();
    BlockDevice data = slice(image, choice.data(), sector);
    BlockDevice verity = slice(image, choice.verity(), sector);
    VerityParams params = Superblocks.params(verity, 0);
    long dataBytes = params.dataBlocks() * params.dataBlockSize();
    if (dataBytes > data.size()) {
      throw new DdiFormatException(
          choice.verity().describe()
              + ": superblock's "
              + params.dataBlocks()
              + " data blocks of "
              + params.dataBlockSize()
              + " bytes (expected: at most the "
              + data.size()
              + " bytes of "
              + choice.data().describe()
              + ")");
    }
    byte[] root = HexFormat.of().parseHex(choice.rootHash());
    CheckReport check = TreeChecker.of(params).withProgress(progress).check(data, verity, root);
    return new VerifyReport(choice, params, certificate, check);
  }

  /** A view of one partition; never closed, as closing it would close the image. */
  static SliceDevice slice(BlockDevice image, DdiPartition p, int sectorSize) throws IOException {
    return SliceDevice.of(
        image,
        p.entry().offset(sectorSize),
        p.entry().size(sectorSize),
        image.description() + " " + p.describe());
  }
}
