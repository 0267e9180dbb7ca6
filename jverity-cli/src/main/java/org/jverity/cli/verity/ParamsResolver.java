package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.jverity.format.DerivedIdentity;
import org.jverity.format.HashFormat;
import org.jverity.format.HashNames;
import org.jverity.format.Hex;
import org.jverity.format.IdentityMismatchException;
import org.jverity.format.ImageIdentity;
import org.jverity.format.SuperblockException;
import org.jverity.format.UnsupportedHashAlgorithmException;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;
import org.jverity.io.BlockDevice;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;

/** Turns command-line options (and, when checking, the superblock) into {@link VerityParams}. */
public final class ParamsResolver {
  /** veritysetup's default salt size for format. */
  static final int DEFAULT_SALT_SIZE = 32;

  private ParamsResolver() {}

  /** Parameters for {@code format}: options, else defaults; salt and UUID from the seed or at random. */
  static VerityParams forFormat(VerityOptions o, Path data, byte[] seed, String seedLabel) throws IOException {
    VerityParams.Builder b = base(o);
    int dbs = b.dataBlockSize();
    b.dataBlocks(o.dataBlocks != null ? o.dataBlocks : wholeBlocks(data, dbs));
    String label = seedLabel != null ? seedLabel : String.valueOf(data.getFileName());
    if (o.salt != null) {
      b.salt(parseSalt(o.salt));
    } else if (seed != null) {
      b.salt(DerivedIdentity.salt(seed, label));
    } else {
      byte[] salt = new byte[DEFAULT_SALT_SIZE];
      new SecureRandom().nextBytes(salt);
      b.salt(salt);
    }
    if (!o.noSuperblock) {
      if (o.uuid != null) {
        b.uuid(parseUuid(o.uuid));
      } else if (seed != null) {
        b.uuid(DerivedIdentity.uuid(seed, label));
      } else {
        b.uuid(UUID.randomUUID());
      }
    }
    return b.build();
  }

  /**
   * Parameters for {@code verify}, {@code dump} and reads: from the superblock when there is one
   * (options given must agree with it), else from the options.
   */
  static VerityParams forCheck(VerityOptions o, Path data, BlockDevice hash) throws IOException {
    if (o.noSuperblock) {
      VerityParams.Builder b = base(o);
      b.salt(o.salt != null ? parseSalt(o.salt) : new byte[0]);
      if (o.dataBlocks != null) {
        b.dataBlocks(o.dataBlocks);
      } else if (data != null) {
        b.dataBlocks(wholeBlocks(data, b.dataBlockSize()));
      } else {
        throw new CliException(ExitCode.INVALID_PARAMETER, "--data-blocks is needed without a superblock");
      }
      return b.build();
    }
    VerityParams p = fromSuperblock(hash, hashOffset(o));
    requireSuperblockAgrees(o, p, hash);
    return p;
  }

  /**
   * Parameters for a check given an image identity: the identity's. A superblock, when there is
   * one, must agree with it (else {@link IdentityMismatchException}), and so must the options given.
   */
  static VerityParams forIdentity(VerityOptions o, BlockDevice hash, ImageIdentity id) throws IOException {
    if (o.noSuperblock) {
      VerityParams p = id.paramsBuilder().hashOffset(hashOffset(o)).superblock(false).build();
      List<String> conflicts = conflicts(o, p);
      if (!conflicts.isEmpty()) {
        throw new CliException(ExitCode.INVALID_PARAMETER,
            "the options contradict the identity: it has " + String.join(", ", conflicts));
      }
      return p;
    }
    VerityParams p = fromSuperblock(hash, hashOffset(o));
    id.check(hash.description(), p);
    requireSuperblockAgrees(o, p, hash);
    return p;
  }

  private static long hashOffset(VerityOptions o) {
    return o.hashOffset != null ? o.hashOffset : 0;
  }

  private static VerityParams fromSuperblock(BlockDevice hash, long offset) throws IOException {
    VeritySuperblock sb = readSuperblock(hash, offset);
    try {
      return sb.toParams(offset);
    } catch (UnsupportedHashAlgorithmException e) {
      throw new UnsupportedHashAlgorithmException(e.algorithm(), hash.description() + ": hash algorithm "
          + e.algorithm() + " (from the superblock) is not supported by jverity");
    } catch (VerityParameterException e) {
      throw new CliException(ExitCode.BAD_SUPERBLOCK, hash.description() + ": superblock " + e.getMessage());
    }
  }

  private static void requireSuperblockAgrees(VerityOptions o, VerityParams p, BlockDevice hash) {
    List<String> conflicts = conflicts(o, p);
    if (!conflicts.isEmpty()) {
      throw new CliException(ExitCode.SUPERBLOCK_MISMATCH,
          hash.description() + ": superblock does not match the options: it has " + String.join(", ", conflicts));
    }
  }

  /** Each tree option given whose value {@code p} does not have: "data blocks 256 (option: 300)". */
  private static List<String> conflicts(VerityOptions o, VerityParams p) {
    List<String> conflicts = new ArrayList<>();
    if (o.hash != null && !HashNames.fromName(o.hash).sameDigest(p.hashAlgorithm())) { // sha-256 is sha256
      conflicts.add("hash algorithm " + p.hashAlgorithm() + " (option: " + o.hash + ")");
    }
    if (o.format != null && HashFormat.fromCode(o.format) != p.hashFormat()) {
      conflicts.add("hash type " + p.hashFormat().code() + " (option: " + o.format + ")");
    }
    if (o.dataBlockSize != null && o.dataBlockSize != p.dataBlockSize()) {
      conflicts.add("data block size " + p.dataBlockSize() + " (option: " + o.dataBlockSize + ")");
    }
    if (o.hashBlockSize != null && o.hashBlockSize != p.hashBlockSize()) {
      conflicts.add("hash block size " + p.hashBlockSize() + " (option: " + o.hashBlockSize + ")");
    }
    if (o.dataBlocks != null && o.dataBlocks != p.dataBlocks()) {
      conflicts.add("data blocks " + p.dataBlocks() + " (option: " + o.dataBlocks + ")");
    }
    if (o.salt != null && !Arrays.equals(parseSalt(o.salt), p.salt())) {
      conflicts.add("salt " + saltText(p.salt()) + " (option: " + o.salt + ")");
    }
    if (o.uuid != null && p.superblock() && !parseUuid(o.uuid).equals(p.uuid())) {
      conflicts.add("uuid " + p.uuid() + " (option: " + o.uuid + ")");
    }
    return conflicts;
  }

  static VeritySuperblock readSuperblock(BlockDevice hash, long offset) throws IOException {
    if (offset < 0 || offset % VerityParams.SECTOR_SIZE != 0) {
      throw new VerityParameterException("hash offset: " + offset + " (expected: a non-negative multiple of " + VerityParams.SECTOR_SIZE + ")");
    }
    long size = hash.size();
    if (offset > size - VeritySuperblock.SIZE) { // not offset + SIZE > size: that overflows
      throw new SuperblockException(hash.description() + ": no superblock at byte " + offset
          + " (the file has " + size + " bytes)");
    }
    byte[] bytes = new byte[VeritySuperblock.SIZE];
    hash.readFully(offset, bytes, 0, bytes.length);
    return VeritySuperblock.decode(hash.description(), bytes);
  }

  /** Options common to format and check, with veritysetup's defaults; no data blocks or salt yet. */
  private static VerityParams.Builder base(VerityOptions o) {
    VerityParams.Builder b = VerityParams.builder();
    if (o.hash != null) {
      b.hashAlgorithm(HashNames.fromName(o.hash));
    }
    if (o.format != null) {
      b.hashFormat(HashFormat.fromCode(o.format));
    }
    if (o.dataBlockSize != null) {
      b.dataBlockSize(VerityParams.checkBlockSize("data block size", o.dataBlockSize));
    }
    if (o.hashBlockSize != null) {
      b.hashBlockSize(VerityParams.checkBlockSize("hash block size", o.hashBlockSize));
    }
    if (o.hashOffset != null) {
      b.hashOffset(o.hashOffset);
    }
    return b.superblock(!o.noSuperblock);
  }

  /** The number of whole data blocks in {@code data} (a file or block device); refuses a partial last block. */
  static long wholeBlocks(Path data, int dataBlockSize) throws IOException {
    long size = DeviceSize.of(data);
    if (size == 0) {
      throw new VerityParameterException(data + ": empty data file (nothing to protect)");
    }
    if (size % dataBlockSize != 0) {
      // veritysetup silently leaves the tail unprotected; we refuse rather than leave bytes unverified.
      throw new VerityParameterException(data + ": size " + size + " is not a multiple of the data block size "
          + dataBlockSize + " (pad the image, or pass --data-blocks=" + size / dataBlockSize
          + " to protect only the whole blocks)");
    }
    return size / dataBlockSize;
  }

  static byte[] parseSalt(String hex) {
    if (hex.equals("-")) {
      return new byte[0];
    }
    byte[] salt = Hex.parse("salt", hex);
    if (salt.length > VerityParams.MAX_SALT_SIZE) {
      throw new VerityParameterException("salt: " + salt.length + " bytes (expected: at most 256)");
    }
    return salt;
  }

  public static String saltText(byte[] salt) {
    return salt.length == 0 ? "-" : Hex.format(salt);
  }

  static UUID parseUuid(String s) {
    if (!s.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")) {
      throw new VerityParameterException("uuid: " + s + " (expected: 8-4-4-4-12 hex digits)");
    }
    return UUID.fromString(s);
  }

  /** The seed's bytes: the string as UTF-8; an empty seed would derive the same salt for everyone. */
  static byte[] seedBytes(String seed) {
    if (seed != null && seed.isEmpty()) {
      throw new VerityParameterException("--seed: \"\" (expected: a secret, at least one character)");
    }
    return seed == null ? null : seed.getBytes(StandardCharsets.UTF_8);
  }
}
