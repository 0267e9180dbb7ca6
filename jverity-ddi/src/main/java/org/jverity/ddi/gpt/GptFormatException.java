package org.jverity.ddi.gpt;

import java.io.IOException;

/**
 * Bytes that are not the GPT they claim to be, or a table no reader should trust (entries beyond
 * the disk, overlapping partitions, a CRC that does not match): one line shaped "what: value
 * (expected: constraint)".
 */
public class GptFormatException extends IOException {
  public GptFormatException(String message) {
    super(message);
  }
}
