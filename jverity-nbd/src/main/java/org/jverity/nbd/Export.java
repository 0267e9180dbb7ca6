package org.jverity.nbd;

import java.util.Objects;
import org.jverity.verify.IoClass;
import org.jverity.verify.VerifiedSource;

/**
 * One image served under a name: its verified bytes, the I/O class its reads run at, and a
 * description for clients that ask. Any {@link VerifiedSource} serves: a dm-verity image through
 * its {@code VerificationScheduler} (small cached reads verify inline on the connection's thread,
 * large ones spread over the cores), an fs-verity {@code VerifiedFile}, an embedder's own.
 * Immutable; the source is thread-safe.
 *
 * @param name the export name ("" is the default export); at most 4096 bytes of UTF-8
 * @param description shown by {@code nbdinfo} and in export lists; may be empty
 * @param source the verified bytes
 * @param ioClass the I/O class of this export's reads (CACHE requests always run at IDLE)
 */
public record Export(String name, String description, VerifiedSource source, IoClass ioClass) {
  public Export {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(ioClass, "ioClass");
    if (NbdStrings.utf8Length(name) > Nbd.MAX_STRING) {
      throw new IllegalArgumentException(
          "export name: "
              + NbdStrings.utf8Length(name)
              + " bytes (expected: at most "
              + Nbd.MAX_STRING
              + ")");
    }
  }

  /** An export of {@code source} at the best-effort class, with no description. */
  public static Export of(String name, VerifiedSource source) {
    return new Export(name, "", source, IoClass.BEST_EFFORT);
  }

  /** Bytes of verified data served. */
  public long size() {
    return source.size();
  }

  /** The data block size: the preferred request size advertised to clients. */
  int blockSize() {
    return source.blockSize();
  }
}
