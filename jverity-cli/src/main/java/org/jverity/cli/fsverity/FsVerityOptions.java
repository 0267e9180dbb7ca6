package org.jverity.cli.fsverity;

import org.jverity.format.Hex;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.WholeNumber;
import org.jverity.hash.HashAlgorithm;

/** The fs-verity tree parameters, named as fsverity-utils names them. */
final class FsVerityOptions {
  String hashAlg = "sha256";
  int blockSize = 4096;
  String salt;

  static final Syntax<FsVerityOptions> SYNTAX = Syntax.<FsVerityOptions>group()
      .option("--hash-alg", "ALG", "Hash algorithm: sha256 (default) or sha512.", (c, v) -> c.hashAlg = v)
      .option("--block-size", "BYTES", "Merkle tree block size, a power of two (default 4096).", (c, v) -> c.blockSize = WholeNumber.parseInt(v))
      .option("--salt", "HEX", "Salt in hex, at most 32 bytes (default: none).", (c, v) -> c.salt = v);

  /** fs-verity's largest salt, in bytes ({@code salt[32]} of the descriptor). */
  static final int MAX_SALT = 32;
  /** The largest block size jverity digests with, in bytes (fsverity-utils has no upper limit). */
  static final int MAX_BLOCK_SIZE = 1 << 20;

  HashAlgorithm algorithm() {
    // fs-verity has two algorithms: any other name, known to dm-verity or not, is the same mistake.
    HashAlgorithm a = HashAlgorithm.lookup(hashAlg).orElse(null);
    if (a == null || !a.equals(HashAlgorithm.SHA256) && !a.equals(HashAlgorithm.SHA512)) {
      throw new CliException(ExitCode.INVALID_PARAMETER, "--hash-alg: " + hashAlg + " (expected: sha256 or sha512)");
    }
    return a;
  }

  int blockSize() {
    int min = 2 * algorithm().digestSize(); // a hash block holds at least two digests
    if (blockSize < min || blockSize > MAX_BLOCK_SIZE || Integer.bitCount(blockSize) != 1) {
      throw new CliException(ExitCode.INVALID_PARAMETER,
          "--block-size: " + blockSize + " (expected: a power of two from " + min + " to " + MAX_BLOCK_SIZE + ")");
    }
    return blockSize;
  }

  byte[] salt() {
    if (salt == null) {
      return new byte[0];
    }
    byte[] s = Hex.parse("--salt", salt);
    if (s.length > MAX_SALT) {
      throw new CliException(ExitCode.INVALID_PARAMETER, "--salt: " + s.length + " bytes (expected: at most " + MAX_SALT + ")");
    }
    return s;
  }
}
