package org.jverity.fsverity;

import java.io.IOException;

/**
 * A file and its Merkle tree hash to an fs-verity digest other than the one expected: the file, its
 * tree, or the parameters (block size, salt) are not the ones the digest names. Nothing of such a
 * file is read; its root hash is never trusted.
 */
public final class FileDigestMismatchException extends IOException {
  private final String expected;
  private final String actual;

  /**
   * @param source the file, as it is named in messages
   * @param expected the digest asked for, {@code alg:hex}
   * @param actual the digest the file and tree give, {@code alg:hex}
   */
  public FileDigestMismatchException(String source, String expected, String actual) {
    super(
        source
            + ": fs-verity digest is "
            + actual
            + ", expected "
            + expected
            + " (the file, its Merkle tree, block size or salt is not the one the digest names)");
    this.expected = expected;
    this.actual = actual;
  }

  /** The digest asked for, {@code alg:hex}. */
  public String expected() {
    return expected;
  }

  /** The digest the file and its tree give, {@code alg:hex}. */
  public String actual() {
    return actual;
  }
}
