package org.jverity.ddi;

import java.util.List;
import java.util.Objects;

/**
 * What systemd-dissect would use for one data partition (root or usr) of a DDI, and why: the data
 * partition, the verity partition and signature partition that go with it, the root hash and where
 * it came from. Immutable.
 *
 * @param designator root or usr
 * @param data the data partition used
 * @param verity its verity partition; null when there is none to use (then nothing is verified)
 * @param signaturePartition the signature partition whose JSON was used; null for none
 * @param signature that partition's JSON; null for none
 * @param rootHash the root hash, lower-case hex; null when none was found
 * @param source where the root hash came from; null when none was found
 * @param notes why this and not another, and what was ignored, one line each
 */
public record Choice(
    Designator designator,
    DdiPartition data,
    DdiPartition verity,
    DdiPartition signaturePartition,
    VeritySignature signature,
    String rootHash,
    RootHashSource source,
    List<String> notes) {

  public Choice {
    Objects.requireNonNull(designator, "designator");
    Objects.requireNonNull(data, "data");
    notes = List.copyOf(notes);
  }

  /** Whether the data partition would be read through verity with a known root hash. */
  public boolean verified() {
    return verity != null && rootHash != null;
  }

  /**
   * Whether a signature partition signs the root hash used (to be checked against certificates).
   */
  public boolean signed() {
    return signature != null && signature.rootHash().equals(rootHash);
  }
}
