package org.jverity.avb.verify;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.ChainPartitionDescriptor;
import org.jverity.avb.Descriptor;
import org.jverity.avb.VbmetaImage;

/**
 * libavb's rules on rollback index locations and indexes: each chain descriptor of the main vbmeta
 * names a location of its own from 1 to 31 (0 is refused, and two vbmeta images sharing one would
 * share one stored index), and no vbmeta's index is below the one the device stores for its
 * location. Stateless.
 */
final class RollbackRules {
  private RollbackRules() {}

  /**
   * The main vbmeta's chain descriptors, before any is followed: at most as many as libavb loads,
   * each with a location from 1 to 31 that no other uses, each partition chained once.
   */
  static void checkChains(String display, VbmetaImage main) throws AvbVerificationException {
    Map<Integer, String> locations = new LinkedHashMap<>();
    int own = main.header().rollbackIndexLocation();
    if (own != 0) {
      locations.put(own, "the main vbmeta");
    }
    Set<String> names = new HashSet<>();
    int chains = 0;
    for (Descriptor d : main.descriptors()) {
      if (!(d instanceof ChainPartitionDescriptor c)) {
        continue;
      }
      chains++;
      String where = display + ": chain partition descriptor for " + c.partitionName();
      int location = c.rollbackIndexLocation();
      if (location == 0) {
        throw new AvbVerificationException(
            where
                + ": rollback_index_location 0 (expected: 1 to "
                + (AvbVerifier.MAX_ROLLBACK_INDEX_LOCATIONS - 1)
                + "; a device refuses it: 'Chain partition has invalid rollback_index_location"
                + " field')");
      }
      if (Integer.compareUnsigned(location, AvbVerifier.MAX_ROLLBACK_INDEX_LOCATIONS) >= 0) {
        throw new AvbVerificationException(
            where
                + ": rollback_index_location "
                + Integer.toUnsignedString(location)
                + " (expected: below "
                + AvbVerifier.MAX_ROLLBACK_INDEX_LOCATIONS
                + "; a device refuses it: 'Invalid rollback_index_location')");
      }
      String other = locations.putIfAbsent(location, c.partitionName());
      if (other != null) {
        throw new AvbVerificationException(
            where
                + ": rollback_index_location "
                + location
                + " is also "
                + other
                + "'s (expected: one location per vbmeta, or one stored index guards both)");
      }
      if (!names.add(c.partitionName())) {
        throw new AvbVerificationException(where + ": the partition is chained twice");
      }
    }
    if (1 + chains > AvbVerifier.MAX_VBMETA_IMAGES) {
      throw new AvbVerificationException(
          display
              + ": "
              + chains
              + " chain partition descriptors (expected: at most "
              + (AvbVerifier.MAX_VBMETA_IMAGES - 1)
              + "; a device refuses more: 'Too many vbmeta images')");
    }
  }

  /**
   * The vbmeta's rollback index at {@code location}, against the index the device stores there (0
   * when none is given), and the location against libavb's limit.
   */
  static void checkIndex(String display, int location, long index, Map<Integer, Long> stored)
      throws AvbVerificationException {
    if (Integer.compareUnsigned(location, AvbVerifier.MAX_ROLLBACK_INDEX_LOCATIONS) >= 0) {
      throw new AvbVerificationException(
          "vbmeta of "
              + display
              + ": rollback_index_location "
              + Integer.toUnsignedString(location)
              + " (expected: below "
              + AvbVerifier.MAX_ROLLBACK_INDEX_LOCATIONS
              + "; a device refuses it: 'Invalid rollback_index_location')");
    }
    long minimum = stored.getOrDefault(location, 0L);
    if (Long.compareUnsigned(index, minimum) < 0) {
      throw new AvbVerificationException(
          "vbmeta of "
              + display
              + ": rollback index "
              + Long.toUnsignedString(index)
              + " is below the "
              + Long.toUnsignedString(minimum)
              + " stored for location "
              + location
              + " (a device refuses it: 'Image rollback index is less than the stored rollback"
              + " index')");
    }
  }
}
