package org.jverity.format;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jverity.hash.HashAlgorithm;

/**
 * The hash algorithm a dm-verity parameter names, on a command line, in a superblock or in an image
 * identity. The {@code hash} package only looks names up; a name that none answers to is a
 * parameter error, and this is where it is phrased, so that {@code hash} needs nothing from here.
 */
public final class HashNames {
  private HashNames() {}

  /**
   * The algorithm of that name, in any case ({@code SHA256} and {@code sha256} alike), as
   * veritysetup accepts it.
   *
   * @throws UnsupportedHashAlgorithmException naming every algorithm there is
   * @throws VerityParameterException for the empty name
   */
  public static HashAlgorithm fromName(String name) {
    Optional<HashAlgorithm> a = HashAlgorithm.lookup(Objects.requireNonNull(name, "name"));
    if (a.isEmpty()) {
      throw unsupported(name);
    }
    return a.get();
  }

  /**
   * The error for a name nothing answers to, naming every algorithm by its own name. An empty name
   * is a mistake on the command line rather than an algorithm jverity lacks.
   */
  private static VerityParameterException unsupported(String name) {
    List<String> names = new ArrayList<>();
    for (HashAlgorithm a : HashAlgorithm.registered()) {
      names.add(a.kernelName());
    }
    String expected = "expected: " + String.join(", ", names) + ")";
    return name.isEmpty()
        ? new VerityParameterException("hash algorithm: \"\" (" + expected)
        : new UnsupportedHashAlgorithmException(
            name, "hash algorithm: " + name + " (not supported; " + expected);
  }
}
