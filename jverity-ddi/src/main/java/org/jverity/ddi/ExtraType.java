package org.jverity.ddi;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The type of a partition a DDI carries beside its verity set ({@code ddi build --extra}): one of
 * the specification's types by systemd's name ({@code esp}, {@code home}, {@code linux-generic},
 * read from {@code generic-partition-types.tsv}; or an architecture's, {@code root-arm64}), or any
 * type UUID. Immutable.
 *
 * @param uuid the GPT type UUID
 * @param name systemd's name of the type; null for a UUID no table here knows
 */
public record ExtraType(UUID uuid, String name) {
  private static final List<ExtraType> GENERIC = load();

  public ExtraType {
    Objects.requireNonNull(uuid, "uuid");
  }

  /** The types that belong to no architecture, in the table's order. */
  public static List<ExtraType> generic() {
    return GENERIC;
  }

  /**
   * The type {@code text} names: a name systemd gives a type, or a type UUID.
   *
   * @throws IllegalArgumentException when it is neither, saying what is expected
   */
  public static ExtraType parse(String text) {
    for (ExtraType t : GENERIC) {
      if (t.name.equals(text)) {
        return t;
      }
    }
    for (PartitionType t : PartitionTypes.all()) {
      if (t.name().equals(text)) {
        return new ExtraType(t.uuid(), t.name());
      }
    }
    if (text.matches(
        "\\p{XDigit}{8}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{12}")) {
      UUID uuid = UUID.fromString(text);
      return new ExtraType(uuid, named(uuid).orElse(null));
    }
    List<String> names = GENERIC.stream().map(ExtraType::name).toList();
    throw new IllegalArgumentException(
        "partition type: '"
            + text
            + "' (expected: "
            + String.join(", ", names)
            + ", an architecture's type such as root-arm64, or a type UUID)");
  }

  /** systemd's name of the type {@code uuid}, if a table here has it. */
  public static Optional<String> named(UUID uuid) {
    for (ExtraType t : GENERIC) {
      if (t.uuid.equals(uuid)) {
        return Optional.of(t.name);
      }
    }
    return PartitionTypes.byUuid(uuid).map(PartitionType::name);
  }

  /**
   * What repart labels a partition of this type that has no {@code Label=}: the type's name, or
   * {@code linux} for a type it has no name for (repart.c's {@code partition_acquire_label}).
   */
  public String labelPrefix() {
    return name != null ? name : "linux";
  }

  @Override
  public String toString() {
    return name != null ? name : uuid.toString();
  }

  private static List<ExtraType> load() {
    try (InputStream in = ExtraType.class.getResourceAsStream("generic-partition-types.tsv")) {
      if (in == null) {
        throw new IllegalStateException("generic-partition-types.tsv is missing from jverity-ddi");
      }
      List<ExtraType> types = new ArrayList<>();
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line; (line = r.readLine()) != null; ) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\t");
        if (f.length != 2) {
          throw new IllegalStateException("generic-partition-types.tsv: line '" + line + "'");
        }
        types.add(new ExtraType(UUID.fromString(f[1]), f[0]));
      }
      return List.copyOf(types);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
