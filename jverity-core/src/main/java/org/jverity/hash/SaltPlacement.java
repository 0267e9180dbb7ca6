package org.jverity.hash;

/** Where the salt goes relative to the block being hashed. */
enum SaltPlacement {
  /** H(salt ‖ block): dm-verity format 1 and fs-verity (whose salt is padded first). */
  BEFORE,
  /** H(block ‖ salt): dm-verity format 0 (Chrome OS). */
  AFTER
}
