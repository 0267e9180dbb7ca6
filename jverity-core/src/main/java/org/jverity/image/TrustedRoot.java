package org.jverity.image;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jverity.format.HashFormat;
import org.jverity.format.HashNames;
import org.jverity.format.Hex;
import org.jverity.format.IdentityMismatchException;
import org.jverity.format.ImageIdentity;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.image.ConflictingOverridesException.Against;
import org.jverity.io.BlockDevice;

/**
 * What an image is checked against: the tree's parameters and its root hash. Given a bare root
 * hash, the parameters come from the superblock (or the overrides); given an {@link ImageIdentity},
 * they come from the identity, and a superblock that disagrees is refused, so a rewritten {@code
 * data_blocks} cannot change what the image is (issue #9).
 *
 * @param params the tree's parameters
 * @param rootHash the trusted root hash
 * @param identity the identity of {@code params} and {@code rootHash}
 */
public record TrustedRoot(VerityParams params, byte[] rootHash, ImageIdentity identity) {

  public TrustedRoot {
    rootHash = rootHash.clone();
  }

  /**
   * A root known already, not read from a device: its parameters and root hash as another format's
   * trusted metadata gives them (an AVB hashtree descriptor in a verified vbmeta). The root's
   * length is checked against the algorithm.
   */
  public static TrustedRoot of(VerityParams params, byte[] rootHash) {
    int want = params.hashAlgorithm().digestSize();
    if (rootHash.length != want) {
      throw new VerityParameterException(
          "root hash: "
              + rootHash.length
              + " bytes (expected: "
              + want
              + " for "
              + params.hashAlgorithm()
              + ")");
    }
    return new TrustedRoot(params, rootHash, ImageIdentity.of(params, rootHash));
  }

  @Override
  public byte[] rootHash() {
    return rootHash.clone();
  }

  /** By value: a reloaded export with the same root is the same export. */
  @Override
  public boolean equals(Object o) {
    return o instanceof TrustedRoot t
        && params.equals(t.params)
        && Arrays.equals(rootHash, t.rootHash)
        && identity.equals(t.identity);
  }

  @Override
  public int hashCode() {
    return params.hashCode() * 31 + Arrays.hashCode(rootHash);
  }

  @Override
  public String toString() {
    return "TrustedRoot[" + identity + "]";
  }

  /** Without a superblock, where the number of data blocks comes from when no override gives it. */
  @FunctionalInterface
  public interface DataBlocks {
    /** None: the overrides must give it. */
    DataBlocks NOT_GIVEN =
        size -> {
          throw new VerityParameterException(
              "data blocks: not given (expected: an override, without a superblock)");
        };

    /** The whole blocks of the data, for {@code dataBlockSize}. */
    long count(int dataBlockSize) throws IOException;

    /** The whole blocks of {@code data}: refuses an empty device or a partial last block. */
    static DataBlocks of(BlockDevice data) {
      return size -> {
        long bytes = data.size();
        if (bytes == 0 || bytes % size != 0) {
          throw new VerityParameterException(
              data.description()
                  + ": size "
                  + bytes
                  + " (expected: a non-zero multiple of the data block size "
                  + size
                  + ")");
        }
        return bytes / size;
      };
    }
  }

  /**
   * As {@link #resolve(ParamOverrides, BlockDevice, String, DataBlocks)} with {@link
   * DataBlocks#NOT_GIVEN}.
   */
  public static TrustedRoot resolve(ParamOverrides o, BlockDevice hash, String rootText)
      throws IOException {
    return resolve(o, hash, rootText, DataBlocks.NOT_GIVEN);
  }

  /**
   * Resolves the root text, a hex root hash or an identity, against the hash device and the
   * overrides.
   *
   * @param data without a superblock and a data-blocks override: where their number comes from
   * @throws ConflictingOverridesException when overrides contradict the superblock or the identity
   * @throws IdentityMismatchException when the superblock contradicts the identity
   */
  public static TrustedRoot resolve(
      ParamOverrides o, BlockDevice hash, String rootText, DataBlocks data) throws IOException {
    if (ImageIdentity.isIdentity(rootText)) {
      ImageIdentity id = ImageIdentity.parse(rootText);
      return new TrustedRoot(forIdentity(o, hash, id), id.rootHash(), id);
    }
    VerityParams p = forCheck(o, hash, data);
    byte[] root = parseRoot(rootText, p);
    return new TrustedRoot(p, root, ImageIdentity.of(p, root));
  }

  /**
   * Parameters for a check: from the superblock when there is one (overrides given must agree with
   * it), else from the overrides.
   */
  public static VerityParams forCheck(ParamOverrides o, BlockDevice hash, DataBlocks data)
      throws IOException {
    if (o.noSuperblock()) {
      VerityParams.Builder b = base(o);
      b.salt(o.salt() != null ? ParamOverrides.parseSalt(o.salt()) : new byte[0]);
      b.dataBlocks(o.dataBlocks() != null ? o.dataBlocks() : data.count(b.dataBlockSize()));
      return b.build();
    }
    VerityParams p = Superblocks.params(hash, o.hashOffsetOrZero());
    requireAgrees(Against.SUPERBLOCK, o, p, hash);
    return p;
  }

  /**
   * Parameters for a check given an image identity: the identity's. A superblock, when there is
   * one, must agree with it (else {@link IdentityMismatchException}), and so must the overrides.
   */
  static VerityParams forIdentity(ParamOverrides o, BlockDevice hash, ImageIdentity id)
      throws IOException {
    if (o.noSuperblock()) {
      VerityParams p =
          id.paramsBuilder().hashOffset(o.hashOffsetOrZero()).superblock(false).build();
      requireAgrees(Against.IDENTITY, o, p, hash);
      return p;
    }
    VerityParams p = Superblocks.params(hash, o.hashOffsetOrZero());
    id.check(hash.description(), p);
    requireAgrees(Against.SUPERBLOCK, o, p, hash);
    return p;
  }

  /**
   * The overrides common to format and check, with veritysetup's defaults; no data blocks or salt
   * yet. Each value is checked as it is read, in this order, so the first bad one is named.
   */
  public static VerityParams.Builder base(ParamOverrides o) {
    VerityParams.Builder b = VerityParams.builder();
    if (o.hashAlgorithm() != null) {
      b.hashAlgorithm(HashNames.fromName(o.hashAlgorithm()));
    }
    if (o.format() != null) {
      b.hashFormat(HashFormat.fromCode(o.format()));
    }
    if (o.dataBlockSize() != null) {
      b.dataBlockSize(VerityParams.checkBlockSize("data block size", o.dataBlockSize()));
    }
    if (o.hashBlockSize() != null) {
      b.hashBlockSize(VerityParams.checkBlockSize("hash block size", o.hashBlockSize()));
    }
    if (o.hashOffset() != null) {
      b.hashOffset(o.hashOffset());
    }
    return b.superblock(!o.noSuperblock());
  }

  private static void requireAgrees(
      Against against, ParamOverrides o, VerityParams p, BlockDevice hash) {
    List<ParamConflict> conflicts = conflicts(o, p);
    if (!conflicts.isEmpty()) {
      throw new ConflictingOverridesException(against, hash.description(), conflicts);
    }
  }

  /** Each override given whose value {@code p} does not have. */
  static List<ParamConflict> conflicts(ParamOverrides o, VerityParams p) {
    List<ParamConflict> conflicts = new ArrayList<>();
    if (o.hashAlgorithm() != null
        && !HashNames.fromName(o.hashAlgorithm())
            .sameDigest(p.hashAlgorithm())) { // sha-256 is sha256
      conflicts.add(
          new ParamConflict(
              "hash algorithm", String.valueOf(p.hashAlgorithm()), o.hashAlgorithm()));
    }
    if (o.format() != null && HashFormat.fromCode(o.format()) != p.hashFormat()) {
      conflicts.add(
          new ParamConflict(
              "hash type", String.valueOf(p.hashFormat().code()), String.valueOf(o.format())));
    }
    if (o.dataBlockSize() != null && o.dataBlockSize() != p.dataBlockSize()) {
      conflicts.add(
          new ParamConflict(
              "data block size",
              String.valueOf(p.dataBlockSize()),
              String.valueOf(o.dataBlockSize())));
    }
    if (o.hashBlockSize() != null && o.hashBlockSize() != p.hashBlockSize()) {
      conflicts.add(
          new ParamConflict(
              "hash block size",
              String.valueOf(p.hashBlockSize()),
              String.valueOf(o.hashBlockSize())));
    }
    if (o.dataBlocks() != null && o.dataBlocks() != p.dataBlocks()) {
      conflicts.add(
          new ParamConflict(
              "data blocks", String.valueOf(p.dataBlocks()), String.valueOf(o.dataBlocks())));
    }
    if (o.salt() != null && !Arrays.equals(ParamOverrides.parseSalt(o.salt()), p.salt())) {
      conflicts.add(new ParamConflict("salt", ParamOverrides.saltText(p.salt()), o.salt()));
    }
    if (o.uuid() != null
        && p.superblock()
        && !ParamOverrides.parseUuid(o.uuid()).equals(p.uuid())) {
      conflicts.add(new ParamConflict("uuid", String.valueOf(p.uuid()), o.uuid()));
    }
    return conflicts;
  }

  /** Parses the hex root hash and checks its length against the tree's algorithm. */
  static byte[] parseRoot(String text, VerityParams p) {
    return of(p, Hex.parse("root hash", text)).rootHash;
  }
}
