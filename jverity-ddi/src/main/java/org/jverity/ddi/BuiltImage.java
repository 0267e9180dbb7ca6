package org.jverity.ddi;

import java.util.List;
import java.util.Objects;
import org.jverity.ddi.gpt.Gpt;
import org.jverity.format.VerityParams;

/**
 * What a build made: the table written, the tree's parameters (the hash offset is the verity
 * partition's start), the root hash, and the signature partition's contents when signed.
 *
 * @param gpt the table, as written
 * @param params the verity tree's parameters, its hash offset relative to the verity partition
 * @param rootHash the root hash, lower-case hex
 * @param signature what the signature partition holds; null when unsigned
 */
public record BuiltImage(Gpt gpt, VerityParams params, String rootHash, VeritySignature signature) {
  public BuiltImage {
    Objects.requireNonNull(gpt, "gpt");
    Objects.requireNonNull(params, "params");
    Objects.requireNonNull(rootHash, "rootHash");
  }

  /** The partitions written, in table order. */
  public List<org.jverity.ddi.gpt.GptEntry> partitions() {
    return gpt.partitions();
  }
}
