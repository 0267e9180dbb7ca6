package org.jverity.cli.avb;

/**
 * avbtool's option names: {@code --partition_size}, with {@code --partition-size} accepted too, so
 * that build scripts port over and jverity's own spelling works. Messages name the underscored one
 * (a Syntax option's name is its last).
 */
final class AvbSpelling {
  private AvbSpelling() {}

  /** {@code "--partition_size"} as {@code "--partition-size, --partition_size"}. */
  static String names(String underscored) {
    String dashed = underscored.substring(0, 2) + underscored.substring(2).replace('_', '-');
    return dashed.equals(underscored) ? underscored : dashed + ", " + underscored;
  }
}
