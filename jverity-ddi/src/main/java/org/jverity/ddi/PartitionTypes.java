package org.jverity.ddi;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The partition types a DDI is made of, read once from {@code partition-types.tsv} (the table is
 * data: a new architecture is a line there, not code). Thread-safe (immutable once loaded).
 */
public final class PartitionTypes {
  private static final List<PartitionType> ALL = load();

  private PartitionTypes() {}

  /** Every type, by architecture in the table's order, then by designator. */
  public static List<PartitionType> all() {
    return ALL;
  }

  /** The type with this UUID, if it is one of the table's. */
  public static Optional<PartitionType> byUuid(UUID uuid) {
    for (PartitionType t : ALL) {
      if (t.uuid().equals(uuid)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  /** The type of {@code designator} for {@code arch}. */
  public static PartitionType of(Designator designator, String arch) {
    for (PartitionType t : ALL) {
      if (t.designator() == designator && t.arch().equals(arch)) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "architecture: '" + arch + "' (expected: one of " + String.join(", ", arches()) + ")");
  }

  /** The architectures of the table, in its order. */
  public static List<String> arches() {
    List<String> arches = new ArrayList<>();
    for (PartitionType t : ALL) {
      if (!arches.contains(t.arch())) {
        arches.add(t.arch());
      }
    }
    return arches;
  }

  /** This machine's architecture as systemd spells it (the JVM's {@code os.arch} mapped). */
  public static String nativeArch() {
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    return switch (arch) {
      case "amd64", "x86_64" -> "x86-64";
      case "aarch64" -> "arm64";
      case "x86", "i386", "i486", "i586", "i686" -> "x86";
      case "ppc64le" -> "ppc64-le";
      case "mipsel" -> "mips-le";
      case "mips64el" -> "mips64-le";
      default -> arch; // arm, ppc64, riscv64, s390x, loongarch64: the same spelling
    };
  }

  private static List<PartitionType> load() {
    try (InputStream in = PartitionTypes.class.getResourceAsStream("partition-types.tsv")) {
      if (in == null) {
        throw new IllegalStateException("partition-types.tsv is missing from jverity-ddi");
      }
      Map<UUID, PartitionType> types = new LinkedHashMap<>();
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      Designator[] columns = Designator.values();
      for (String line; (line = r.readLine()) != null; ) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\t");
        if (f.length != columns.length + 1) {
          throw new IllegalStateException("partition-types.tsv: line '" + line + "'");
        }
        for (int i = 0; i < columns.length; i++) {
          PartitionType t = new PartitionType(columns[i], f[0], UUID.fromString(f[i + 1]));
          if (types.put(t.uuid(), t) != null) {
            throw new IllegalStateException("partition-types.tsv: " + t.uuid() + " twice");
          }
        }
      }
      return List.copyOf(types.values());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
