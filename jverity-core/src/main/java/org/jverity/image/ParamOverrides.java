package org.jverity.image;

import java.util.UUID;
import org.jverity.format.Hex;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;

/**
 * The tree parameters a caller gives instead of (or to check against) the superblock, as
 * veritysetup's options name them. Each is null when not given, so a superblock's value can fill it
 * in and a contradiction can be named; the texts are kept as given, so a conflict quotes them.
 *
 * @param hashAlgorithm the algorithm's name (sha256, sha-256, ...); null: the superblock's
 * @param dataBlockSize bytes; null: the superblock's
 * @param hashBlockSize bytes; null: the superblock's
 * @param dataBlocks blocks; null: the superblock's (without one: the whole data device)
 * @param hashOffset bytes from the hash device's start to the superblock or tree; null: 0
 * @param salt hex, or "-" for none; null: the superblock's
 * @param uuid 8-4-4-4-12 hex; null: any
 * @param format the hash type, 0 (Chrome OS) or 1; null: the superblock's
 * @param noSuperblock whether the hash device has no superblock (the overrides then give
 *     everything)
 */
public record ParamOverrides(
    String hashAlgorithm,
    Long dataBlockSize,
    Long hashBlockSize,
    Long dataBlocks,
    Long hashOffset,
    String salt,
    String uuid,
    Long format,
    boolean noSuperblock) {

  /** Nothing given: the superblock says everything. */
  public static final ParamOverrides NONE =
      new ParamOverrides(null, null, null, null, null, null, null, null, false);

  /** The hash offset given, else 0. */
  public long hashOffsetOrZero() {
    return hashOffset != null ? hashOffset : 0;
  }

  /** The salt text as bytes: "-" is none. */
  public static byte[] parseSalt(String hex) {
    if (hex.equals("-")) {
      return new byte[0];
    }
    byte[] salt = Hex.parse("salt", hex);
    if (salt.length > VerityParams.MAX_SALT_SIZE) {
      throw new VerityParameterException("salt: " + salt.length + " bytes (expected: at most 256)");
    }
    return salt;
  }

  /** A salt as the overrides write it: hex, or "-" for none. */
  public static String saltText(byte[] salt) {
    return salt.length == 0 ? "-" : Hex.format(salt);
  }

  /** The UUID text, checked to be 8-4-4-4-12 hex digits (UUID.fromString takes shorter groups). */
  public static UUID parseUuid(String s) {
    if (!s.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")) {
      throw new VerityParameterException("uuid: " + s + " (expected: 8-4-4-4-12 hex digits)");
    }
    return UUID.fromString(s);
  }
}
