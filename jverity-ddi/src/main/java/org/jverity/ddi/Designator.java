package org.jverity.ddi;

/**
 * What a partition of a DDI is for, as the Discoverable Partitions Specification designates it: a
 * data partition (root or usr), the verity partition holding its hash tree, or the signature
 * partition holding its root hash's signature. The name is systemd's ({@code root-verity-sig}).
 */
public enum Designator {
  ROOT("root"),
  ROOT_VERITY("root-verity"),
  ROOT_VERITY_SIG("root-verity-sig"),
  USR("usr"),
  USR_VERITY("usr-verity"),
  USR_VERITY_SIG("usr-verity-sig");

  private final String label;

  Designator(String label) {
    this.label = label;
  }

  /** systemd's name: {@code root}, {@code usr-verity}, … */
  public String label() {
    return label;
  }

  /** Whether this is a data partition (root or usr). */
  public boolean isData() {
    return this == ROOT || this == USR;
  }

  /** The data partition this one belongs to (itself for a data partition). */
  public Designator data() {
    return ordinal() < USR.ordinal() ? ROOT : USR;
  }

  /** The verity partition of this one's data partition. */
  public Designator verity() {
    return data() == ROOT ? ROOT_VERITY : USR_VERITY;
  }

  /** The signature partition of this one's data partition. */
  public Designator signature() {
    return data() == ROOT ? ROOT_VERITY_SIG : USR_VERITY_SIG;
  }

  /** The data partition named {@code name} ("root" or "usr"). */
  public static Designator dataNamed(String name) {
    return switch (name) {
      case "root" -> ROOT;
      case "usr" -> USR;
      default ->
          throw new IllegalArgumentException("partition: '" + name + "' (expected: root or usr)");
    };
  }
}
