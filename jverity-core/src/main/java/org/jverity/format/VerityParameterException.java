package org.jverity.format;

/**
 * A parameter that dm-verity cannot accept: a block size that is not a power of two, a salt over
 * 256 bytes, a hash area that overlaps the data. The message names the parameter and its value.
 */
public class VerityParameterException extends IllegalArgumentException {
  public VerityParameterException(String message) {
    super(message);
  }
}
