package org.jverity.format;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jverity.hash.HashAlgorithm;

/**
 * One string that names a dm-verity image completely: every parameter that changes how the data is
 * interpreted, and the root hash. A root hash alone does not bind the superblock (which the kernel
 * never reads): rewriting its {@code data_blocks} changes what a reader calls the image while the
 * tree still hashes to the same root. A reader given the identity takes the parameters from it and
 * refuses a superblock that disagrees ({@link #check}).
 *
 * <pre>
 * identity = "verity1" ":" algorithm ":" data-block-size ":" hash-block-size ":" data-blocks
 *            ":" hash-type ":" salt ":" root-hash
 * algorithm        a name veritysetup takes for --hash, in lower case: sha256, sha3-256, ...
 * *-size           bytes, decimal; a power of two from 512 to 524288
 * data-blocks      decimal count, at least 1
 * hash-type        0 (Chrome OS) or 1 (normal)
 * salt             lower-case hex, or "-" for none
 * root-hash        lower-case hex, the algorithm's digest size
 *
 * e.g. verity1:sha256:4096:4096:262144:1:e48da609...:c833f047...
 * </pre>
 *
 * Where the tree sits (hash offset, superblock or not) and the UUID are left out: they do not
 * change what the data means, and a tree in the wrong place does not hash to the root. Numbers are
 * canonical (no sign, no leading zero); hex is read in either case and printed in lower case, so
 * {@code parse(id.toString())} equals {@code id}. Immutable; pure, no I/O.
 *
 * @param hashAlgorithm the digest of every block
 * @param dataBlockSize bytes per data block
 * @param hashBlockSize bytes per hash block
 * @param dataBlocks number of data blocks the tree covers
 * @param hashFormat format 0 (Chrome OS) or 1 (normal)
 * @param salt raw salt, at most 256 bytes; may be empty
 * @param rootHash the digest of the top hash block, {@code hashAlgorithm.digestSize()} bytes
 */
public record ImageIdentity(
    HashAlgorithm hashAlgorithm,
    int dataBlockSize,
    int hashBlockSize,
    long dataBlocks,
    HashFormat hashFormat,
    byte[] salt,
    byte[] rootHash) {

  /** The first field: the name and version of this text form. */
  public static final String VERSION = "verity1";

  /** The form {@link #parse} expects, for error messages. */
  public static final String FORM =
      VERSION + ":ALG:DATA_BLOCK_SIZE:HASH_BLOCK_SIZE:DATA_BLOCKS:HASH_TYPE:SALT|-:ROOT_HASH";

  private static final int FIELDS = 8;

  public ImageIdentity {
    Objects.requireNonNull(hashAlgorithm, "hashAlgorithm");
    Objects.requireNonNull(hashFormat, "hashFormat");
    salt = salt.clone();
    rootHash = rootHash.clone();
    // The same checks as every tree: block sizes, digests per hash block, data blocks, salt size.
    new VerityParams(
        hashAlgorithm, hashFormat, dataBlockSize, hashBlockSize, dataBlocks, 0, salt, null, false);
    if (rootHash.length != hashAlgorithm.digestSize()) {
      throw new VerityParameterException(
          "root hash: "
              + rootHash.length
              + " bytes (expected: "
              + hashAlgorithm.digestSize()
              + " for "
              + hashAlgorithm
              + ")");
    }
  }

  /** The identity of the tree {@code p} describes, whose root hash is {@code rootHash}. */
  public static ImageIdentity of(VerityParams p, byte[] rootHash) {
    return new ImageIdentity(
        p.hashAlgorithm(),
        p.dataBlockSize(),
        p.hashBlockSize(),
        p.dataBlocks(),
        p.hashFormat(),
        p.salt(),
        rootHash);
  }

  /**
   * Whether {@code text} is meant as an identity rather than a bare root hash: it has a colon,
   * which hex never has.
   */
  public static boolean isIdentity(String text) {
    return text.indexOf(':') >= 0;
  }

  /**
   * Parses the text form above.
   *
   * @throws VerityParameterException naming the field that is wrong, with the expected form
   */
  public static ImageIdentity parse(String text) {
    String[] f = text.split(":", -1);
    if (f.length != FIELDS) {
      throw new VerityParameterException(
          "identity: "
              + f.length
              + " fields in "
              + abbreviate(text)
              + " (expected: "
              + FIELDS
              + ", "
              + FORM
              + ")");
    }
    if (!f[0].equals(VERSION)) {
      throw new VerityParameterException(
          "identity: version " + abbreviate(f[0]) + " (expected: " + FORM + ")");
    }
    try {
      return new ImageIdentity(
          HashNames.fromName(f[1]),
          VerityParams.checkBlockSize("data block size", number("data block size", f[2])),
          VerityParams.checkBlockSize("hash block size", number("hash block size", f[3])),
          number("data blocks", f[4]),
          HashFormat.fromCode(number("hash type", f[5])),
          f[6].equals("-") ? new byte[0] : nonEmptyHex("salt", f[6]),
          nonEmptyHex("root hash", f[7]));
    } catch (UnsupportedHashAlgorithmException e) { // keeps its type: a caller tells it from a typo
      throw new UnsupportedHashAlgorithmException(e.algorithm(), "identity: " + e.getMessage());
    } catch (VerityParameterException e) {
      throw new VerityParameterException("identity: " + e.getMessage());
    }
  }

  /**
   * A builder holding the identity's parameters; the caller adds where the tree sits (hash offset,
   * superblock, UUID).
   */
  public VerityParams.Builder paramsBuilder() {
    return VerityParams.builder()
        .hashAlgorithm(hashAlgorithm)
        .hashFormat(hashFormat)
        .dataBlockSize(dataBlockSize)
        .hashBlockSize(hashBlockSize)
        .dataBlocks(dataBlocks)
        .salt(salt);
  }

  /**
   * Throws unless {@code p} (read from the superblock on {@code source}) has this identity's
   * parameters.
   *
   * @throws IdentityMismatchException naming every field that differs, superblock value first
   */
  public void check(String source, VerityParams p) throws IdentityMismatchException {
    List<String> conflicts = new ArrayList<>();
    if (!p.hashAlgorithm().sameDigest(hashAlgorithm)) { // sha-256 and sha256 make the same tree
      conflicts.add(
          "hash algorithm " + p.hashAlgorithm() + " (identity says " + hashAlgorithm + ")");
    }
    if (p.dataBlockSize() != dataBlockSize) {
      conflicts.add(
          "data block size " + p.dataBlockSize() + " (identity says " + dataBlockSize + ")");
    }
    if (p.hashBlockSize() != hashBlockSize) {
      conflicts.add(
          "hash block size " + p.hashBlockSize() + " (identity says " + hashBlockSize + ")");
    }
    if (p.dataBlocks() != dataBlocks) {
      conflicts.add("data blocks " + p.dataBlocks() + " (identity says " + dataBlocks + ")");
    }
    if (p.hashFormat() != hashFormat) {
      conflicts.add(
          "hash type " + p.hashFormat().code() + " (identity says " + hashFormat.code() + ")");
    }
    if (!Arrays.equals(p.salt(), salt)) {
      conflicts.add("salt " + saltText(p.salt()) + " (identity says " + saltText(salt) + ")");
    }
    if (!conflicts.isEmpty()) {
      throw new IdentityMismatchException(source, conflicts);
    }
  }

  @Override
  public byte[] salt() {
    return salt.clone();
  }

  @Override
  public byte[] rootHash() {
    return rootHash.clone();
  }

  @Override
  public String toString() {
    return String.join(
        ":",
        VERSION,
        hashAlgorithm.kernelName(),
        Integer.toString(dataBlockSize),
        Integer.toString(hashBlockSize),
        Long.toString(dataBlocks),
        Integer.toString(hashFormat.code()),
        saltText(salt),
        Hex.format(rootHash));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ImageIdentity i
        && hashAlgorithm.equals(i.hashAlgorithm)
        && dataBlockSize == i.dataBlockSize
        && hashBlockSize == i.hashBlockSize
        && dataBlocks == i.dataBlocks
        && hashFormat == i.hashFormat
        && Arrays.equals(salt, i.salt)
        && Arrays.equals(rootHash, i.rootHash);
  }

  @Override
  public int hashCode() {
    return (Objects.hash(hashAlgorithm, dataBlockSize, hashBlockSize, dataBlocks, hashFormat) * 31
                + Arrays.hashCode(salt))
            * 31
        + Arrays.hashCode(rootHash);
  }

  /** A canonical decimal: digits only, no leading zero, at most Long.MAX_VALUE. */
  private static long number(String what, String s) {
    if (!s.matches("0|[1-9][0-9]{0,18}")) {
      throw new VerityParameterException(
          what + ": " + abbreviate(s) + " (expected: a decimal number)");
    }
    try {
      return Long.parseLong(s);
    } catch (NumberFormatException e) { // 19 digits above Long.MAX_VALUE
      throw new VerityParameterException(
          what + ": " + s + " (expected: at most " + Long.MAX_VALUE + ")");
    }
  }

  private static byte[] nonEmptyHex(String what, String s) {
    if (s.isEmpty()) {
      throw new VerityParameterException(
          what + ": empty (expected: hex" + (what.equals("salt") ? ", or -" : "") + ")");
    }
    return Hex.parse(what, s);
  }

  private static String saltText(byte[] salt) {
    return salt.length == 0 ? "-" : Hex.format(salt);
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }
}
