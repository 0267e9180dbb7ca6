package org.jverity.avb.verify;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import org.jverity.avb.AvbPublicKey;
import org.jverity.format.VerityParameterException;

/**
 * {@code --expected_chain_partition NAME:LOCATION:KEY}: what the main vbmeta's chain descriptor for
 * a partition must say, its rollback index location and its key blob.
 *
 * @param partitionName the chained partition, e.g. {@code system}
 * @param rollbackIndexLocation the location the descriptor must name, at least 1
 * @param publicKey the key blob the descriptor must hold
 */
public record ExpectedChain(String partitionName, int rollbackIndexLocation, byte[] publicKey) {
  public ExpectedChain {
    Objects.requireNonNull(partitionName, "partitionName");
    if (rollbackIndexLocation < 1) {
      throw new IllegalArgumentException(
          "expected chain partition "
              + partitionName
              + ": rollback index location "
              + rollbackIndexLocation
              + " (expected: at least 1)");
    }
    publicKey = publicKey.clone();
  }

  /**
   * Parses {@code NAME:LOCATION:KEYFILE}, as avbtool does; the key file is the blob (as avbtool
   * reads it) or a PEM key.
   */
  public static ExpectedChain parse(String spec) throws IOException {
    String[] parts = spec.split(":", -1);
    if (parts.length != 3 || parts[0].isEmpty() || parts[2].isEmpty()) {
      throw new VerityParameterException(
          "--expected_chain_partition "
              + spec
              + " (expected: NAME:ROLLBACK_INDEX_LOCATION:KEY_FILE)");
    }
    int location;
    try {
      location = Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      throw new VerityParameterException(
          "--expected_chain_partition "
              + spec
              + ": location "
              + parts[1]
              + " (expected: a number)");
    }
    if (location < 1) {
      throw new VerityParameterException(
          "--expected_chain_partition "
              + spec
              + ": location "
              + location
              + " (expected: at least 1)");
    }
    return new ExpectedChain(parts[0], location, AvbPublicKey.readBlob(Path.of(parts[2])));
  }

  @Override
  public byte[] publicKey() {
    return publicKey.clone();
  }

  /** Whether {@code blob} is exactly the expected key. */
  boolean keyIs(byte[] blob) {
    return Arrays.equals(publicKey, blob);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ExpectedChain e
        && partitionName.equals(e.partitionName)
        && rollbackIndexLocation == e.rollbackIndexLocation
        && Arrays.equals(publicKey, e.publicKey);
  }

  @Override
  public int hashCode() {
    return Objects.hash(partitionName, rollbackIndexLocation) * 31 + Arrays.hashCode(publicKey);
  }

  @Override
  public String toString() {
    return partitionName + ":" + rollbackIndexLocation + ":sha1 " + AvbPublicKey.sha1(publicKey);
  }
}
