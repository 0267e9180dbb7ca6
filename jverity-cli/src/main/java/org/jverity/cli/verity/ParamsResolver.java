package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;
import org.jverity.format.DerivedIdentity;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.image.ParamOverrides;
import org.jverity.image.TrustedRoot;
import org.jverity.io.KernelRandom;

/** Turns command-line options (and, when checking, the superblock) into {@link VerityParams}. */
public final class ParamsResolver {
  /** veritysetup's default salt size for format. */
  static final int DEFAULT_SALT_SIZE = 32;

  private ParamsResolver() {}

  /**
   * Parameters for {@code format}: options, else defaults; salt and UUID from the seed or at
   * random.
   */
  static VerityParams forFormat(VerityOptions o, Path data, byte[] seed, String seedLabel)
      throws IOException {
    VerityParams.Builder b = base(o);
    int dbs = b.dataBlockSize();
    b.dataBlocks(o.dataBlocks != null ? o.dataBlocks : wholeBlocks(data, dbs));
    String label = seedLabel != null ? seedLabel : String.valueOf(data.getFileName());
    if (o.salt != null) {
      b.salt(parseSalt(o.salt));
    } else if (seed != null) {
      b.salt(DerivedIdentity.salt(seed, label));
    } else {
      b.salt(KernelRandom.bytes(DEFAULT_SALT_SIZE));
    }
    if (!o.noSuperblock) {
      if (o.uuid != null) {
        b.uuid(parseUuid(o.uuid));
      } else if (seed != null) {
        b.uuid(DerivedIdentity.uuid(seed, label));
      } else {
        b.uuid(DerivedIdentity.version4(KernelRandom.bytes(16)));
      }
    }
    return b.build();
  }

  /**
   * Options common to format and check, with veritysetup's defaults; no data blocks or salt yet.
   */
  private static VerityParams.Builder base(VerityOptions o) {
    return TrustedRoot.base(o.overrides());
  }

  /**
   * The number of whole data blocks in {@code data} (a file or block device); refuses a partial
   * last block.
   */
  static long wholeBlocks(Path data, int dataBlockSize) throws IOException {
    long size = DeviceSize.of(data);
    if (size == 0) {
      throw new VerityParameterException(data + ": empty data file (nothing to protect)");
    }
    if (size % dataBlockSize != 0) {
      // veritysetup silently leaves the tail unprotected; we refuse rather than leave bytes
      // unverified.
      throw new VerityParameterException(
          data
              + ": size "
              + size
              + " is not a multiple of the data block size "
              + dataBlockSize
              + " (pad the image, or pass --data-blocks="
              + size / dataBlockSize
              + " to protect only the whole blocks)");
    }
    return size / dataBlockSize;
  }

  static byte[] parseSalt(String hex) {
    return ParamOverrides.parseSalt(hex);
  }

  public static String saltText(byte[] salt) {
    return ParamOverrides.saltText(salt);
  }

  static UUID parseUuid(String s) {
    return ParamOverrides.parseUuid(s);
  }

  /**
   * The seed's bytes: the string as UTF-8; an empty seed would derive the same salt for everyone.
   */
  static byte[] seedBytes(String seed) {
    if (seed != null && seed.isEmpty()) {
      throw new VerityParameterException(
          "--seed: \"\" (expected: a secret, at least one character)");
    }
    return seed == null ? null : seed.getBytes(StandardCharsets.UTF_8);
  }
}
