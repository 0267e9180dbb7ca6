package org.jverity.ddi;

import java.util.Objects;
import java.util.UUID;

/**
 * One partition type of the specification: what it designates, for which architecture, its type
 * UUID. Immutable.
 *
 * @param designator root, usr, or one of their verity or signature partitions
 * @param arch the architecture as systemd spells it ({@code x86-64}, {@code arm64})
 * @param uuid the GPT type UUID
 */
public record PartitionType(Designator designator, String arch, UUID uuid) {
  public PartitionType {
    Objects.requireNonNull(designator, "designator");
    Objects.requireNonNull(arch, "arch");
    Objects.requireNonNull(uuid, "uuid");
  }

  /**
   * systemd's name of the type, which repart also gives the partition as its default label: {@code
   * root-x86-64}, {@code root-x86-64-verity}, {@code usr-arm64-verity-sig}.
   */
  public String name() {
    String d = designator.label();
    int dash = d.indexOf('-');
    return dash < 0 ? d + "-" + arch : d.substring(0, dash) + "-" + arch + d.substring(dash);
  }

  @Override
  public String toString() {
    return name();
  }
}
