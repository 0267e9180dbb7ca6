package org.jverity.verify;

import java.io.IOException;

/** A read of a {@link VerifiedSource} that was closed. */
public final class SourceClosedException extends IOException {
  public SourceClosedException(String what) {
    super(what + " is closed");
  }
}
