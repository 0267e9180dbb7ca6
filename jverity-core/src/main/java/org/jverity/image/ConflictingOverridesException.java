package org.jverity.image;

import java.util.List;
import java.util.Locale;

/**
 * Overrides that contradict what the image says about itself: its superblock, or the identity it
 * was given by. Carries the conflicts as values, so that a front end phrases them in its own words
 * (the CLI as "(option: X)").
 */
public final class ConflictingOverridesException extends RuntimeException {
  /** What the overrides contradict. */
  public enum Against {
    /** The superblock on the hash device. */
    SUPERBLOCK,
    /** The image identity given as the trusted root, without a superblock to check it against. */
    IDENTITY
  }

  private final Against against;
  private final String device;
  private final List<ParamConflict> conflicts;

  public ConflictingOverridesException(
      Against against, String device, List<ParamConflict> conflicts) {
    super(
        device
            + ": the "
            + against.name().toLowerCase(Locale.ROOT)
            + " contradicts the overrides: "
            + conflicts);
    this.against = against;
    this.device = device;
    this.conflicts = List.copyOf(conflicts);
  }

  public Against against() {
    return against;
  }

  /** The hash device's description. */
  public String device() {
    return device;
  }

  /** Each contradicted override, in the order the parameters are listed. */
  public List<ParamConflict> conflicts() {
    return conflicts;
  }
}
