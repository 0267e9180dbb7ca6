package org.jverity.avb.tool;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.avb.AvbPublicKey;
import org.jverity.io.AtomicOutput;

/**
 * avbtool's {@code extract_public_key}: the AVB public-key blob of a key (what {@code
 * --chain_partition} and a bootloader's {@code avb_custom_key} take), written to {@code output}.
 */
public record ExtractPublicKey(Path key, Path output) {
  /** Writes the blob; returns it. */
  public byte[] apply() throws IOException {
    byte[] blob = AvbPublicKey.readBlob(key);
    AtomicOutput.write(output, blob);
    return blob;
  }
}
