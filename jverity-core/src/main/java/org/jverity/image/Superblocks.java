package org.jverity.image;

import java.io.IOException;
import org.jverity.format.SuperblockException;
import org.jverity.format.UnsupportedHashAlgorithmException;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;
import org.jverity.io.BlockDevice;

/** The superblock a hash device holds at an offset (veritysetup's {@code --hash-offset}). */
public final class Superblocks {
  private Superblocks() {}

  /**
   * Reads and decodes the superblock at {@code offset}.
   *
   * @throws VerityParameterException when the offset is not a non-negative multiple of 512
   * @throws SuperblockException when the device is too short for one, or it does not decode
   */
  public static VeritySuperblock read(BlockDevice hash, long offset) throws IOException {
    if (offset < 0 || offset % VerityParams.SECTOR_SIZE != 0) {
      throw new VerityParameterException(
          "hash offset: "
              + offset
              + " (expected: a non-negative multiple of "
              + VerityParams.SECTOR_SIZE
              + ")");
    }
    long size = hash.size();
    if (offset > size - VeritySuperblock.SIZE) { // not offset + SIZE > size: that overflows
      throw new SuperblockException(
          hash.description()
              + ": no superblock at byte "
              + offset
              + " (the file has "
              + size
              + " bytes)");
    }
    byte[] bytes = new byte[VeritySuperblock.SIZE];
    hash.readFully(offset, bytes, 0, bytes.length);
    return VeritySuperblock.decode(hash.description(), bytes);
  }

  /**
   * The parameters of the superblock at {@code offset}, each refusal naming the device.
   *
   * @throws UnsupportedHashAlgorithmException when its algorithm is not registered
   * @throws SuperblockException when it does not decode, or a field is out of range
   */
  public static VerityParams params(BlockDevice hash, long offset) throws IOException {
    VeritySuperblock sb = read(hash, offset);
    try {
      return sb.toParams(offset);
    } catch (UnsupportedHashAlgorithmException e) {
      throw new UnsupportedHashAlgorithmException(
          e.algorithm(),
          hash.description()
              + ": hash algorithm "
              + e.algorithm()
              + " (from the superblock) is not supported by jverity");
    } catch (VerityParameterException e) {
      throw new SuperblockException(hash.description() + ": superblock " + e.getMessage());
    }
  }
}
