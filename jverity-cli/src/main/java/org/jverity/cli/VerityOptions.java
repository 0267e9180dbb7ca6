package org.jverity.cli;

import picocli.CommandLine.Option;

/**
 * The tree options, named as veritysetup names them. Boxed types stay null when an option is not
 * given, so a superblock's values can fill them in and contradictions can be reported.
 */
final class VerityOptions {
  @Option(names = {"-h", "--hash"}, paramLabel = "ALG", description = "Hash algorithm, as veritysetup names it: sha256 (default), sha1, sha512, sha3-256, blake2b-512, sm3, ... (README lists them all).")
  String hash;

  @Option(names = "--data-block-size", paramLabel = "BYTES", description = "Data block size (default 4096).")
  Long dataBlockSize;

  @Option(names = "--hash-block-size", paramLabel = "BYTES", description = "Hash block size (default 4096).")
  Long hashBlockSize;

  @Option(names = "--data-blocks", paramLabel = "BLOCKS", description = "Number of data blocks (default: the whole data file).")
  Long dataBlocks;

  @Option(names = "--hash-offset", paramLabel = "BYTES", description = "Byte offset of the hash area (superblock) on the hash device; a multiple of 512.")
  Long hashOffset;

  @Option(names = {"-s", "--salt"}, paramLabel = "HEX", description = "Salt as hex, or - for none (format default: 32 random bytes).")
  String salt;

  @Option(names = "--uuid", paramLabel = "UUID", description = "UUID written to the superblock (format default: random).")
  String uuid;

  @Option(names = "--format", paramLabel = "0|1", description = "Hash format: 1 = normal (default), 0 = original Chrome OS.")
  Long format;

  @Option(names = "--no-superblock", description = "Do not write or read a superblock.")
  boolean noSuperblock;
}
