package org.jverity.testing;

import java.util.List;
import org.jverity.hash.HashAlgorithm;

/** The algorithms the core has built in, indexable by property tests. */
public final class Algorithms {
  private Algorithms() {}

  /** Every built-in algorithm: SHA-1, the SHA-2 family and SHA-3, from the JDK. */
  public static final List<HashAlgorithm> BUILT_IN =
      List.of(
          HashAlgorithm.SHA1,
          HashAlgorithm.SHA224,
          HashAlgorithm.SHA256,
          HashAlgorithm.SHA384,
          HashAlgorithm.SHA512,
          HashAlgorithm.SHA512_224,
          HashAlgorithm.SHA512_256,
          HashAlgorithm.SHA3_224,
          HashAlgorithm.SHA3_256,
          HashAlgorithm.SHA3_384,
          HashAlgorithm.SHA3_512);
}
