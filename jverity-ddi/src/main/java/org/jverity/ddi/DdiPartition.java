package org.jverity.ddi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jverity.ddi.gpt.GptEntry;

/**
 * A partition of a DDI: its entry and, when the table of types knows it, what it is. Immutable.
 *
 * @param entry the GPT entry
 * @param type what it is; empty for a type the table does not have (an ESP, a home partition)
 */
public record DdiPartition(GptEntry entry, Optional<PartitionType> type) {
  public DdiPartition {
    Objects.requireNonNull(entry, "entry");
    Objects.requireNonNull(type, "type");
  }

  /** The partition of {@code entry}, its type looked up. */
  public static DdiPartition of(GptEntry entry) {
    return new DdiPartition(entry, PartitionTypes.byUuid(entry.type()));
  }

  /** Whether it is {@code designator}'s partition for {@code arch}. */
  public boolean is(Designator designator, String arch) {
    return type.isPresent()
        && type.get().designator() == designator
        && type.get().arch().equals(arch);
  }

  /** "partition 2 (root-x86-64-verity)", for messages. */
  public String describe() {
    return "partition "
        + entry.number()
        + " ("
        + type.map(PartitionType::name).orElse(entry.type().toString())
        + ")";
  }

  /** The attribute bits the specification defines, by name, in bit order. */
  public List<String> flags() {
    List<String> flags = new ArrayList<>();
    if (entry.has(GptEntry.REQUIRED)) {
      flags.add("required");
    }
    if (entry.has(GptEntry.GROW_FS)) {
      flags.add("grow-fs");
    }
    if (entry.has(GptEntry.READ_ONLY)) {
      flags.add("read-only");
    }
    if (entry.has(GptEntry.NO_AUTO)) {
      flags.add("no-auto");
    }
    return flags;
  }
}
