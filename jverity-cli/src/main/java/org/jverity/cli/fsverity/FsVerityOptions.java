package org.jverity.cli.fsverity;

import java.util.HexFormat;
import java.util.List;
import org.jverity.cli.syntax.BadValue;
import org.jverity.cli.syntax.Syntax;
import org.jverity.fsverity.FsVerityParams;
import org.jverity.hash.HashAlgorithm;

/**
 * The fs-verity tree parameters of {@code digest}, {@code cat}, {@code sign} and {@code
 * verify-sig}, named and spelled as fsverity-utils' options: the values are parsed here, and {@link
 * FsVerityParams} refuses those no fs-verity tree can have (so the four commands accept the same
 * block sizes and salts as {@code fsverity digest}).
 */
final class FsVerityOptions {
  /** Null until {@code --hash-alg} is given: SHA-256, or for {@code cat} the digest's. */
  HashAlgorithm algorithm;

  int blockSize = FsVerityParams.DEFAULT_BLOCK_SIZE;
  byte[] salt = new byte[0];

  static final Syntax<FsVerityOptions> SYNTAX =
      Syntax.<FsVerityOptions>group()
          .option(
              "--hash-alg",
              "ALG",
              "sha256 (default) or sha512.",
              (c, v) -> c.algorithm = AlgorithmName.parse(v))
          .choices(AlgorithmName.NAMES)
          .option(
              "--block-size",
              "N",
              "Merkle tree block size in bytes, a power of two (default "
                  + FsVerityParams.DEFAULT_BLOCK_SIZE
                  + ").",
              (c, v) -> c.blockSize = BlockSize.parse(v))
          .option(
              "--salt",
              "HEX",
              "Salt, up to " + FsVerityParams.MAX_SALT_SIZE + " bytes in hex (default: none).",
              (c, v) -> c.salt = SaltHex.parse(v));

  /** The parameters with {@code --hash-alg}'s algorithm, SHA-256 when not given. */
  FsVerityParams params() {
    return params(HashAlgorithm.SHA256);
  }

  /** The parameters with {@code --hash-alg}'s algorithm, {@code otherwise} when not given. */
  FsVerityParams params(HashAlgorithm otherwise) {
    return new FsVerityParams(algorithm != null ? algorithm : otherwise, blockSize, salt);
  }

  /** --hash-alg: the names fsverity accepts, exactly. */
  static final class AlgorithmName {
    private AlgorithmName() {}

    static final List<String> NAMES = List.of("sha256", "sha512");

    static HashAlgorithm parse(String value) {
      return switch (value) {
        case "sha256" -> HashAlgorithm.SHA256;
        case "sha512" -> HashAlgorithm.SHA512;
        default -> throw new BadValue("sha256 or sha512");
      };
    }
  }

  /**
   * --block-size: a decimal number of bytes, a power of two, as fsverity-utils' {@code
   * parse_block_size_option} ("Must be power of 2"); the range, which depends on the algorithm, is
   * {@link FsVerityParams}'s.
   */
  static final class BlockSize {
    private BlockSize() {}

    static int parse(String value) {
      try {
        int n = Integer.parseInt(value);
        if (n > 0 && Integer.bitCount(n) == 1) {
          return n;
        }
      } catch (NumberFormatException e) {
        // refused below
      }
      throw new BadValue("a power of two in bytes, e.g. 4096");
    }
  }

  /**
   * --salt: hex, empty for none, as fsverity-utils' {@code parse_salt_option} (which refuses {@code
   * -}); at most the descriptor's {@code salt[32]}.
   */
  static final class SaltHex {
    private SaltHex() {}

    static byte[] parse(String value) {
      byte[] b;
      try {
        b = HexFormat.of().parseHex(value);
      } catch (IllegalArgumentException e) {
        throw new BadValue("an even number of hex digits");
      }
      if (b.length > FsVerityParams.MAX_SALT_SIZE) {
        throw new BadValue("at most " + FsVerityParams.MAX_SALT_SIZE + " bytes in hex");
      }
      return b;
    }
  }
}
