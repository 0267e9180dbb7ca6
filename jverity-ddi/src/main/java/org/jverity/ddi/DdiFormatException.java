package org.jverity.ddi;

import java.io.IOException;

/**
 * A DDI that systemd would refuse, or that cannot be trusted: a signature partition that is not its
 * JSON, a verity partition without its superblock, a partition that does not match its root hash.
 * One line shaped "what: value (expected: constraint)".
 */
public class DdiFormatException extends IOException {
  public DdiFormatException(String message) {
    super(message);
  }
}
