package org.jverity.avb;

import java.io.IOException;

/**
 * Bytes that are not the AVB structure they claim to be (a footer, a vbmeta header, a descriptor, a
 * public-key blob): one line shaped "what: value (expected: constraint)", as libavb would refuse
 * them.
 */
public class AvbFormatException extends IOException {
  public AvbFormatException(String message) {
    super(message);
  }
}
