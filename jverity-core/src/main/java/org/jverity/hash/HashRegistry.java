package org.jverity.hash;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every hash algorithm name jverity answers to, and the algorithm each stands for. Names are kept
 * in lower case and looked up in any case, as OpenSSL (veritysetup's backend) looks them up.
 *
 * <p>Thread-safe: lookups read a concurrent map without locking; registration, which happens a few
 * dozen times per process, is serialised on the class.
 */
final class HashRegistry {
  /** Lower-case name → the algorithm of that name (an alias is an algorithm of its own name). */
  private static final Map<String, HashAlgorithm> BY_NAME = new ConcurrentHashMap<>();

  /** The algorithms registered under their own name, in registration order; aliases left out. */
  private static final List<HashAlgorithm> PRIMARY = new ArrayList<>();

  private HashRegistry() {}

  static Optional<HashAlgorithm> lookup(String name) {
    return Optional.ofNullable(BY_NAME.get(name.toLowerCase(Locale.ROOT)));
  }

  /**
   * Adds {@code algorithm} and, for each alias, the same digest under that name. Registering an
   * equal algorithm again is a no-op (a command line may register at every run); a name already
   * taken by another digest is refused, so a registration can never change what a name hashes.
   *
   * @return the algorithm registered under {@code algorithm}'s name
   */
  static synchronized HashAlgorithm register(HashAlgorithm algorithm, List<HashAlgorithm> aliases) {
    HashAlgorithm existing = BY_NAME.get(algorithm.kernelName());
    for (HashAlgorithm a : concat(algorithm, aliases)) {
      HashAlgorithm taken = BY_NAME.get(a.kernelName());
      if (taken != null && !taken.equals(a)) {
        throw new IllegalArgumentException(
            "hash algorithm name: "
                + a.kernelName()
                + " (already registered for "
                + taken.jcaName()
                + ", not "
                + a.jcaName()
                + ")");
      }
    }
    for (HashAlgorithm a : concat(algorithm, aliases)) {
      BY_NAME.putIfAbsent(a.kernelName(), a);
    }
    if (existing == null) {
      PRIMARY.add(algorithm);
      return algorithm;
    }
    return existing;
  }

  static synchronized List<HashAlgorithm> primaries() {
    return List.copyOf(PRIMARY);
  }

  private static List<HashAlgorithm> concat(HashAlgorithm first, List<HashAlgorithm> rest) {
    List<HashAlgorithm> all = new ArrayList<>(rest.size() + 1);
    all.add(first);
    all.addAll(rest);
    return all;
  }
}
