package org.jverity.format;

import org.jverity.hash.HashAlgorithm;

/**
 * A hash algorithm name that no registered {@link HashAlgorithm} answers to. It keeps the name, so
 * that a caller can still show what the superblock says (as {@code dump} does) and tell this apart
 * from a parameter that is simply wrong.
 */
public final class UnsupportedHashAlgorithmException extends VerityParameterException {
  private final String algorithm;

  /**
   * @param algorithm the name as given or as stored in the superblock
   * @param message one line naming it and what is expected instead
   */
  public UnsupportedHashAlgorithmException(String algorithm, String message) {
    super(message);
    this.algorithm = algorithm;
  }

  /** The name nothing answers to, as given. */
  public String algorithm() {
    return algorithm;
  }
}
