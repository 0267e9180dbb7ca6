package org.jverity.cli.verity;

import java.util.List;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.WholeNumber;
import org.jverity.format.VerityParams;
import org.jverity.hash.HashAlgorithm;
import org.jverity.hashes.VeritysetupHashes;
import org.jverity.image.ParamOverrides;

/**
 * The tree options, named as veritysetup names them. Boxed types stay null when an option is not
 * given, so a superblock's values can fill them in and contradictions can be reported.
 */
public final class VerityOptions {
  public String hash;
  public Long dataBlockSize;
  public Long hashBlockSize;
  public Long dataBlocks;
  public Long hashOffset;
  public String salt;
  String uuid;
  public Long format;
  public boolean noSuperblock;

  /** The algorithms, for both help texts. */
  static final String HASH_HELP =
      "Hash algorithm, as veritysetup names it: sha256, sha1, sha512, sha3-256, blake2b-512, sm3, ... (docs/usage.md lists them all)";

  /**
   * The names {@code --hash} takes, as veritysetup writes them (aliases left out): the core's and
   * {@link VeritysetupHashes}' (registered here too, for a caller that is not Main: the docs).
   */
  private static List<String> hashNames() {
    VeritysetupHashes.register();
    return HashAlgorithm.registered().stream().map(HashAlgorithm::kernelName).toList();
  }

  /** {@code format}'s: the values written to the tree and its superblock. */
  static final Syntax<VerityOptions> FORMAT =
      Syntax.<VerityOptions>group()
          .option("-h, --hash", "ALG", HASH_HELP + " (default sha256).", (o, v) -> o.hash = v)
          .choices(hashNames())
          .option(
              "--data-block-size",
              "BYTES",
              "Data block size (default 4096).",
              VerityOptions::dataBlockSize)
          .option(
              "--hash-block-size",
              "BYTES",
              "Hash block size (default 4096).",
              VerityOptions::hashBlockSize)
          .option(
              "--data-blocks",
              "BLOCKS",
              "Number of data blocks to hash (default: the whole data file).",
              VerityOptions::dataBlocks)
          .option(
              "--hash-offset",
              "BYTES",
              "Byte offset of the hash area (superblock) on the hash device; a"
                  + " multiple of "
                  + VerityParams.SECTOR_SIZE
                  + ".",
              VerityOptions::hashOffset)
          .option(
              "-s, --salt",
              "HEX",
              "Salt as hex, or - for none (default: 32 random bytes).",
              (o, v) -> o.salt = v)
          .option(
              "--uuid",
              "UUID",
              "UUID written to the superblock (default: random).",
              (o, v) -> o.uuid = v)
          .option(
              "--format",
              "0|1",
              "Hash format: 1 = normal (default), 0 = original Chrome OS.",
              VerityOptions::format)
          .flag(
              "--no-superblock",
              "Write no superblock: verify, read and open then need the options above.",
              o -> o.noSuperblock = true);

  /**
   * The commands that check a tree ({@code verify}, {@code read}, {@code repair}, {@code open}):
   * with a superblock its values are used, and options given must agree with them.
   */
  public static final Syntax<VerityOptions> CHECK =
      Syntax.<VerityOptions>group()
          .option(
              "-h, --hash",
              "ALG",
              HASH_HELP + " (default: the superblock's, else sha256).",
              (o, v) -> o.hash = v)
          .choices(hashNames())
          .option(
              "--data-block-size",
              "BYTES",
              "Data block size (default: the superblock's, else 4096).",
              VerityOptions::dataBlockSize)
          .option(
              "--hash-block-size",
              "BYTES",
              "Hash block size (default: the superblock's, else 4096).",
              VerityOptions::hashBlockSize)
          .option(
              "--data-blocks",
              "BLOCKS",
              "Number of data blocks (default: the superblock's, else the whole data" + " file).",
              VerityOptions::dataBlocks)
          .option(
              "--hash-offset",
              "BYTES",
              "Byte offset of the hash area (superblock) on the hash device (default" + " 0).",
              VerityOptions::hashOffset)
          .option(
              "-s, --salt",
              "HEX",
              "Salt as hex, or - for none (default: the superblock's, else none).",
              (o, v) -> o.salt = v)
          .option("--uuid", "UUID", "The superblock's UUID must be this one.", (o, v) -> o.uuid = v)
          .option(
              "--format",
              "0|1",
              "Hash format (default: the superblock's, else 1).",
              VerityOptions::format)
          .flag(
              "--no-superblock",
              "The hash device has no superblock: the options above give the parameters.",
              o -> o.noSuperblock = true);

  /** The values given, for the opener: null where not given. */
  public ParamOverrides overrides() {
    return new ParamOverrides(
        hash,
        dataBlockSize,
        hashBlockSize,
        dataBlocks,
        hashOffset,
        salt,
        uuid,
        format,
        noSuperblock);
  }

  private static void dataBlockSize(VerityOptions o, String v) {
    o.dataBlockSize = WholeNumber.parseLong(v);
  }

  private static void hashBlockSize(VerityOptions o, String v) {
    o.hashBlockSize = WholeNumber.parseLong(v);
  }

  private static void dataBlocks(VerityOptions o, String v) {
    o.dataBlocks = WholeNumber.parseLong(v);
  }

  private static void hashOffset(VerityOptions o, String v) {
    o.hashOffset = WholeNumber.parseLong(v);
  }

  private static void format(VerityOptions o, String v) {
    o.format = WholeNumber.parseLong(v);
  }
}
