package org.jverity.server;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a reloaded config changes, export by export, compared by name: added, removed, changed (the
 * same name with another record: other files, root hash, options) and unchanged. A signature is
 * compared by its files, not by the check object each read makes. Immutable.
 *
 * @param added new names, in the new config's order
 * @param removed names no longer there, in the old order
 * @param changed names whose record differs, in the new order
 * @param unchanged names whose record is the same, in the new order
 */
record ConfigChanges(
    List<ExportConfig> added,
    List<String> removed,
    List<ExportConfig> changed,
    List<String> unchanged) {

  static ConfigChanges between(Map<String, ExportConfig> before, List<ExportConfig> after) {
    Map<String, ExportConfig> now = new LinkedHashMap<>();
    after.forEach(e -> now.put(e.name(), e));
    List<ExportConfig> added = new ArrayList<>();
    List<ExportConfig> changed = new ArrayList<>();
    List<String> unchanged = new ArrayList<>();
    for (ExportConfig e : now.values()) {
      ExportConfig old = before.get(e.name());
      if (old == null) {
        added.add(e);
      } else if (same(old, e)) {
        unchanged.add(e.name());
      } else {
        changed.add(e);
      }
    }
    List<String> removed = before.keySet().stream().filter(n -> !now.containsKey(n)).toList();
    return new ConfigChanges(
        List.copyOf(added), List.copyOf(removed), List.copyOf(changed), List.copyOf(unchanged));
  }

  /** The names whose export must be opened anew: added and changed. */
  List<ExportConfig> toOpen() {
    List<ExportConfig> all = new ArrayList<>(added);
    all.addAll(changed);
    return all;
  }

  /** Whether the reload changes nothing at all. */
  boolean none() {
    return added.isEmpty() && removed.isEmpty() && changed.isEmpty();
  }

  /** "1 added, 1 removed, 1 changed, 2 unchanged". */
  String summary() {
    return added.size()
        + " added, "
        + removed.size()
        + " removed, "
        + changed.size()
        + " changed, "
        + unchanged.size()
        + " unchanged";
  }

  /**
   * Whether two records serve the same thing: every component equal, the signature by its files
   * (each read makes a new check object). Component by component, so a field added to {@link
   * ExportConfig} counts without a change here.
   */
  static boolean same(ExportConfig a, ExportConfig b) {
    for (RecordComponent c : ExportConfig.class.getRecordComponents()) {
      Object x = value(c, a);
      Object y = value(c, b);
      if (x instanceof ExportConfig.Signature s && y instanceof ExportConfig.Signature t) {
        x = List.of(String.valueOf(s.signature()), s.trusted());
        y = List.of(String.valueOf(t.signature()), t.trusted());
      }
      if (!Objects.equals(x, y)) {
        return false;
      }
    }
    return true;
  }

  private static Object value(RecordComponent c, ExportConfig e) {
    try {
      return c.getAccessor().invoke(e);
    } catch (ReflectiveOperationException x) {
      throw new IllegalStateException("ExportConfig." + c.getName() + ": " + x, x); // public
    }
  }
}
