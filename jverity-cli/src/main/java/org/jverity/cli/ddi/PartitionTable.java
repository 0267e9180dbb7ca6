package org.jverity.cli.ddi;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.ddi.DdiPartition;
import org.jverity.ddi.ExtraType;
import org.jverity.ddi.PartitionType;
import org.jverity.ddi.gpt.Gpt;

/**
 * A DDI's partitions as {@code ddi build} and {@code ddi inspect} show them: one line each, in
 * table order (number, type, UUID, label, first byte, bytes, flags), and the same as JSON.
 */
final class PartitionTable {
  private PartitionTable() {}

  static void print(PrintWriter out, Gpt gpt, List<DdiPartition> partitions) {
    out.printf(
        "%-3s %-26s %-36s %-26s %12s %12s  %s%n",
        "#", "Type", "UUID", "Label", "Offset", "Size", "Flags");
    for (DdiPartition p : partitions) {
      out.printf(
          "%-3d %-26s %-36s %-26s %12d %12d  %s%n",
          p.entry().number(),
          type(p),
          p.entry().guid(),
          p.entry().name().isEmpty() ? "-" : p.entry().name(),
          p.entry().offset(gpt.sectorSize()),
          p.entry().size(gpt.sectorSize()),
          p.flags().isEmpty() ? "-" : String.join(",", p.flags()));
    }
  }

  static List<Object> json(Gpt gpt, List<DdiPartition> partitions) {
    List<Object> list = new ArrayList<>();
    for (DdiPartition p : partitions) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("number", p.entry().number());
      m.put("type", type(p));
      m.put("typeUuid", p.entry().type().toString());
      m.put("uuid", p.entry().guid().toString());
      m.put("label", p.entry().name());
      m.put("offset", p.entry().offset(gpt.sectorSize()));
      m.put("size", p.entry().size(gpt.sectorSize()));
      m.put("flags", p.flags());
      list.add(m);
    }
    return list;
  }

  /** systemd's name of the type, or its UUID when no table here knows it. */
  static String type(DdiPartition p) {
    return p.type()
        .map(PartitionType::name)
        .or(() -> ExtraType.named(p.entry().type()))
        .orElse(p.entry().type().toString());
  }
}
