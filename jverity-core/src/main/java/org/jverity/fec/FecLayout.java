package org.jverity.fec;

import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.tree.MerkleLayout;

/**
 * Where dm-verity's forward error correction puts what (cryptsetup {@code verity_fec.c}, the
 * kernel's {@code dm-verity-fec.c}): pure arithmetic, immutable.
 *
 * <p>The message area is T blocks of B bytes: the data blocks, then the hash device from the first
 * tree block ({@code hashStart}; the superblock is not covered) to the FEC area when FEC shares the
 * hash device, else to the hash device's end. Blocks past T read as zeros. With k = 255 − roots,
 * there are R = ⌈T / k⌉ rounds; codeword (round r, byte b) takes byte b of message blocks r, r + R,
 * r + 2R, … (k of them), and its {@code roots} parity bytes sit at {@code fecOffset + (r·B +
 * b)·roots} on the FEC device.
 *
 * @param blockSize B, bytes: the data block size, which must equal the hash block size
 * @param roots parity bytes per codeword, 2..24
 * @param dataBlocks message blocks from the data device
 * @param hashStart first covered block on the hash device, in blocks
 * @param hashBlocks message blocks from the hash device, from {@code hashStart}
 * @param fecOffset byte offset of the parity on the FEC device
 */
public record FecLayout(
    int blockSize, int roots, long dataBlocks, long hashStart, long hashBlocks, long fecOffset) {

  public FecLayout {
    ReedSolomon.checkRoots("FEC roots", roots, VerityParameterException::new);
    if (dataBlocks < 1 || hashStart < 0 || hashBlocks < 0 || fecOffset < 0) {
      throw new VerityParameterException(
          "FEC layout: data blocks "
              + dataBlocks
              + ", hash start "
              + hashStart
              + ", hash blocks "
              + hashBlocks
              + ", offset "
              + fecOffset
              + " (expected: non-negative, data blocks >= 1)");
    }
    // The parity must end within a device's byte range, so that every offset below is a long.
    try {
      long rounds = Math.ceilDiv(Math.addExact(dataBlocks, hashBlocks), ReedSolomon.N - roots);
      Math.addExact(fecOffset, Math.multiplyExact(rounds, (long) blockSize * roots));
    } catch (ArithmeticException e) {
      throw new VerityParameterException(
          "FEC layout: offset "
              + fecOffset
              + ", "
              + dataBlocks
              + " data and "
              + hashBlocks
              + " hash blocks of "
              + blockSize
              + " bytes (expected: parity that ends before byte 2^63)");
    }
  }

  /**
   * The layout veritysetup uses for {@code params}: FEC on its own device, or on the hash device at
   * {@code fecOffset} ({@code fecInHashDevice}); {@code hashDeviceSize} is the hash device's size
   * in bytes (used when FEC has a device of its own: the whole rest of it is covered).
   *
   * @throws VerityParameterException when the block sizes differ or the offset is impossible
   */
  public static FecLayout of(
      VerityParams params,
      int roots,
      long fecOffset,
      boolean fecInHashDevice,
      long hashDeviceSize) {
    if (params.dataBlockSize() != params.hashBlockSize()) {
      throw new VerityParameterException(
          "FEC: data block size "
              + params.dataBlockSize()
              + " and hash block size "
              + params.hashBlockSize()
              + " differ (expected: equal block sizes, as FEC needs)");
    }
    int b = params.dataBlockSize();
    long hashStart = MerkleLayout.dmVerity(params).firstHashBlock();
    long end = (fecInHashDevice ? fecOffset : hashDeviceSize) / b; // covered up to here, in blocks
    long hashBlocks = end == 0 ? 0 : end - hashStart;
    if (hashBlocks < 0) {
      throw new VerityParameterException(
          "FEC offset: "
              + fecOffset
              + " (expected: after the hash tree, which starts at "
              + hashStart * b
              + ")");
    }
    return new FecLayout(b, roots, params.dataBlocks(), hashStart, hashBlocks, fecOffset);
  }

  /** k: message bytes per codeword. */
  public int messageLength() {
    return ReedSolomon.N - roots;
  }

  /** T: message blocks covered. */
  public long messageBlocks() {
    return dataBlocks + hashBlocks;
  }

  /** R: rounds (codewords per byte position). */
  public long rounds() {
    return Math.ceilDiv(messageBlocks(), messageLength());
  }

  /**
   * Bytes of parity on the FEC device: R·B·roots (veritysetup's "FEC device size" less the offset).
   */
  public long paritySize() {
    return Math.multiplyExact(Math.multiplyExact(rounds(), blockSize), (long) roots);
  }

  /** Parity blocks: R·roots (veritysetup's "FEC blocks"). */
  public long parityBlocks() {
    return rounds() * roots;
  }

  /** Message index of data block {@code block}. */
  public long messageIndexOfData(long block) {
    return block;
  }

  /** Message index of hash device block {@code block}, or -1 when FEC does not cover it. */
  public long messageIndexOfHash(long block) {
    long i = block - hashStart;
    return i >= 0 && i < hashBlocks ? dataBlocks + i : -1;
  }

  /** The round message block {@code m} belongs to. */
  public long round(long m) {
    return m % rounds();
  }

  /** Its position in the codewords of its round: 0..k−1. */
  public int row(long m) {
    return (int) (m / rounds()); // < k
  }

  /** Message block at {@code row} of {@code round}; ≥ T means a block of zeros. */
  public long messageIndex(long round, int row) {
    return round + row * rounds();
  }

  /**
   * Whether message block {@code m} is a data block (else a hash device block, or zeros past T).
   */
  public boolean isData(long m) {
    return m < dataBlocks;
  }

  /** The hash device block of message block {@code m} (dataBlocks ≤ m < T). */
  public long hashBlockOf(long m) {
    return hashStart + (m - dataBlocks);
  }

  /** Byte offset on the FEC device of round {@code round}'s parity (B·roots bytes). */
  public long parityOffset(long round) {
    return fecOffset + round * blockSize * roots;
  }
}
