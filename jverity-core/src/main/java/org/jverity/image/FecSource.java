package org.jverity.image;

import java.io.IOException;
import org.jverity.fec.FecLayout;
import org.jverity.fec.FecRepairer;
import org.jverity.format.VerityParams;
import org.jverity.io.BlockDevice;
import org.jverity.io.DeviceTooSmallException;

/**
 * Where an image's Reed-Solomon parity is, as veritysetup's {@code --fec-device}, {@code
 * --fec-offset} and {@code --fec-roots} say, before anything is opened.
 *
 * @param device the parity device's location (it may be the hash device's)
 * @param offset where the parity starts on it, in bytes
 * @param roots parity bytes per codeword, 2 to 24
 */
public record FecSource(String device, long offset, int roots) {

  /**
   * Opens the parity for the image through {@code source}: the hash device itself when they are one
   * device, else a device of its own, checked to be long enough. The result owns what it opened; on
   * a failure nothing stays open.
   *
   * @param hashLocation the hash device's location, to tell whether the parity shares it
   * @throws DeviceTooSmallException when the parity device is shorter than its layout
   */
  public FecParity open(
      DeviceSource source,
      VerityParams params,
      BlockDevice data,
      BlockDevice hash,
      String hashLocation)
      throws IOException {
    boolean shared = source.same(device, hashLocation);
    FecLayout layout = FecLayout.of(params, roots, offset, shared, hash.size());
    BlockDevice fec = shared ? hash : source.open(device);
    try {
      long needed = Math.addExact(offset, layout.paritySize());
      if (fec.size() < needed) {
        throw new DeviceTooSmallException("FEC area (truncated?)", device, fec.size(), needed);
      }
      return new FecParity(new FecRepairer(layout, data, hash, fec), shared ? null : fec);
    } catch (IOException | RuntimeException e) {
      if (!shared) {
        Closing.quietly(fec);
      }
      throw e;
    }
  }
}
