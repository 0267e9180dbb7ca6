package org.jverity.format;

/**
 * The two dm-verity hash formats ({@code hash_type} in the superblock, {@code --format} in
 * veritysetup). They differ in where the salt goes and how digests sit in a hash block.
 */
public enum HashFormat {
  /** Chrome OS original: digest = H(block ‖ salt); digests packed back to back in a hash block. */
  CHROME_OS(0),
  /** Normal: digest = H(salt ‖ block); each digest padded with zeros to a power-of-two slot. */
  NORMAL(1);

  private final int code;

  HashFormat(int code) {
    this.code = code;
  }

  /** The value of {@code hash_type} / {@code --format}. */
  public int code() {
    return code;
  }

  /** True when the salt is hashed before the block (format 1), false when after (format 0). */
  public boolean saltFirst() {
    return this == NORMAL;
  }

  public static HashFormat fromCode(long code) {
    for (HashFormat f : values()) {
      if (f.code == code) {
        return f;
      }
    }
    throw new VerityParameterException("hash format: " + code + " (expected: 0 or 1)");
  }
}
