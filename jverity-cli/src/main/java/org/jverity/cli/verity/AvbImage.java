package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.verify.AvbPartition;
import org.jverity.avb.verify.AvbTrust;
import org.jverity.cli.command.Checks;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.image.DeviceSource;
import org.jverity.image.FecSource;
import org.jverity.image.ParamOverrides;
import org.jverity.image.RootCheck;
import org.jverity.image.VerityImage;
import org.jverity.io.BlockDevice;

/**
 * An Android Verified Boot partition image resolved into what every other image is opened with: its
 * vbmeta checked against the key ({@link AvbPartition#open}) before anything else is read, then the
 * hashtree descriptor as a dm-verity image on one device, without a superblock: the image is data,
 * hash and FEC device, the tree at {@code tree_offset}, {@code image_size} bytes of data, the
 * parity over {@code [0, fec_offset)}. Opened through {@link VerityImage#open} from there, it
 * reads, corrects, counts and serves as any image does; the data (and an export) is {@code [0,
 * image_size)}, however long the file. Immutable.
 *
 * @param location the image: a path, or a URL
 * @param params the tree's parameters, as the descriptor gives them
 * @param rootDigest the descriptor's root digest, trusted once the vbmeta verified
 * @param fec the parity on the image itself; null when the descriptor has none
 * @param signed whether the vbmeta is signed (by the key given); false only when {@code none} was
 *     given
 */
public record AvbImage(
    String location, VerityParams params, byte[] rootDigest, FecSource fec, boolean signed) {

  public AvbImage {
    rootDigest = rootDigest.clone();
  }

  @Override
  public byte[] rootDigest() {
    return rootDigest.clone();
  }

  /**
   * Reads {@code location}'s footer and vbmeta through {@code source} and checks them against
   * {@code key} (a key file, or {@link AvbOptions#UNSIGNED}), before anything else of the image is
   * read. A refusal is {@link AvbPartition#open}'s one line: a signature that does not verify, a
   * key that is not the one given, an unsigned vbmeta without {@code none}, verification or the
   * hashtree disabled by the flags ({@link AvbVerificationException}, exit 18); no footer, no
   * hashtree descriptor, bytes that are no vbmeta ({@link AvbFormatException}, exit 17).
   */
  public static AvbImage resolve(DeviceSource source, String location, String key)
      throws IOException {
    AvbTrust trust;
    if (key.equals(AvbOptions.UNSIGNED)) {
      trust = AvbTrust.unsigned();
    } else {
      Checks.requireFile(Path.of(key), "AVB key");
      trust = AvbTrust.parse(key);
    }
    try (BlockDevice image = source.open(location)) {
      AvbPartition p = AvbPartition.open(image, location, trust);
      FecSource fec =
          p.fecRoots() > 0 ? new FecSource(location, p.fecOffset(), p.fecRoots()) : null;
      return new AvbImage(location, p.params(), p.rootDigest(), fec, p.signed());
    }
  }

  /** The data's size: the descriptor's {@code image_size}, what is read and served. */
  public long imageSize() {
    return params.dataBlocks() * params.dataBlockSize();
  }

  /**
   * The descriptor's parameters as the opener takes them from the command line: no superblock,
   * every value given, so nothing is read from the image to find them again.
   */
  public ParamOverrides overrides() {
    return new ParamOverrides(
        params.hashAlgorithm().kernelName(),
        (long) params.dataBlockSize(),
        (long) params.hashBlockSize(),
        params.dataBlocks(),
        params.hashOffset(),
        ParamOverrides.saltText(params.salt()),
        null,
        (long) params.hashFormat().code(),
        true);
  }

  /** The root digest as a root hash argument: hex. */
  public String rootText() {
    return Hex.format(rootDigest);
  }

  /**
   * Opens the image as data and hash device through {@code source}: the root is the vbmeta's,
   * checked already, so there is no further check.
   */
  public VerityImage open(DeviceSource source) throws IOException {
    try {
      return VerityImage.open(
          source, location, location, overrides(), rootText(), null, RootCheck.NONE);
    } catch (GeneralSecurityException e) {
      throw new AssertionError("RootCheck.NONE refused a root", e); // it checks nothing
    }
  }

  /**
   * The line saying that the vbmeta is not signed and was accepted by {@code how} (the option or
   * key that said none); null when it is signed.
   */
  public String unsignedNotice(String how) {
    return signed ? null : location + ": vbmeta is not signed (accepted: " + how + ")";
  }
}
