package org.jverity.cli.verity;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jverity.format.Hex;
import org.jverity.image.TrustedRoot;
import org.jverity.verify.VerifiedReader;

/**
 * {@code read -o FILE --json}'s object: what was written where, from which verified image, and what
 * the reader met on the way (the counts {@code status} shows for a served export, under the same
 * names). Stateless.
 */
final class ReadSummary {
  private ReadSummary() {}

  /**
   * @param output the file written
   * @param offset the first data byte written
   * @param length bytes written
   */
  static Map<String, Object> of(
      Path output, long offset, long length, TrustedRoot trusted, VerifiedReader reader) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("output", output.toString());
    m.put("offset", offset);
    m.put("length", length);
    m.put("rootHash", Hex.format(trusted.rootHash()));
    m.put("identity", trusted.identity().toString());
    m.put("corruptions", reader.corruptionCount()); // written anyway: --ignore-corruption
    m.put("repaired", reader.repairedCount()); // corrected with FEC
    return m;
  }
}
