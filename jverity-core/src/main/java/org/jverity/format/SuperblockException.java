package org.jverity.format;

import java.io.IOException;

/** A dm-verity superblock that cannot be decoded: bad magic, version, sizes or salt length. */
public final class SuperblockException extends IOException {
  public SuperblockException(String message) {
    super(message);
  }
}
