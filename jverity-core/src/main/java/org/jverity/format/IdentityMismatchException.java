package org.jverity.format;

import java.io.IOException;
import java.util.List;

/**
 * A superblock whose parameters contradict the {@link ImageIdentity} a reader was given: the
 * superblock was rewritten, or belongs to another image. The message lists every field that
 * differs, e.g. "data.hash: superblock contradicts the identity: data blocks 300 (identity says
 * 256)".
 */
public final class IdentityMismatchException extends IOException {
  private final List<String> conflicts;

  public IdentityMismatchException(String source, List<String> conflicts) {
    super(source + ": superblock contradicts the identity: " + String.join(", ", conflicts));
    this.conflicts = List.copyOf(conflicts);
  }

  /** One entry per differing field: "data blocks 300 (identity says 256)". */
  public List<String> conflicts() {
    return conflicts;
  }
}
