package org.jverity.avb.verify;

/**
 * {@code androidboot.veritymode}, as libfs_avb's {@code ConstructVerityTable} turns it into the
 * dm-verity table's error-mode argument: enforcing (the default when the bootloader sets nothing)
 * restarts on corruption, logging ignores it, eio adds nothing (the kernel's default, EIO).
 */
public enum AndroidVerityMode {
  ENFORCING("restart_on_corruption"),
  LOGGING("ignore_corruption"),
  EIO(null);

  private final String tableArgument;

  AndroidVerityMode(String tableArgument) {
    this.tableArgument = tableArgument;
  }

  /** The optional argument dm-verity's table gets, or null for none. */
  public String tableArgument() {
    return tableArgument;
  }
}
