package org.jverity.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.image.Locations;
import org.jverity.image.ParamOverrides;
import org.jverity.remote.RemoteReport;
import org.jverity.tree.Area;
import org.jverity.verify.CacheStats;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.SourceStats;
import org.jverity.verify.VerifiedReader;

/**
 * What {@code jverity status NAME} prints about a served export: veritysetup status's lines, in its
 * order and spelling ({@code type: VERITY}, {@code status: verified} or {@code corrupted}, sizes in
 * 512-byte sectors), then jverity's own (URI, counts of corruptions, verifications and cache use,
 * connections). Computed in the serving process at the moment it is asked. Stateless.
 */
final class StatusReport {
  private StatusReport() {}

  /**
   * @param uri where clients reach the export
   * @param connections connections open now (to the whole server)
   */
  static String text(ServedExport served, String uri, int connections) {
    VerifiedReader reader = served.reader();
    SourceStats stats = served.export.source().stats();
    VerityParams p = served.trusted.params();
    CacheStats cache = stats.cache();
    List<String[]> rows = new ArrayList<>();
    rows.add(row("type", "VERITY"));
    DeviceErrors errors = served.deviceErrors;
    rows.add(row("status", stats.failedClosed() ? "corrupted (stopped)" : state(served, stats)));
    rows.add(row("hash type", Integer.toString(p.hashFormat().code())));
    rows.add(row("data block", Integer.toString(p.dataBlockSize())));
    rows.add(row("hash block", Integer.toString(p.hashBlockSize())));
    rows.add(row("hash name", p.hashAlgorithm().kernelName()));
    rows.add(row("salt", p.saltSize() == 0 ? "-" : Hex.format(p.salt())));
    rows.add(row("data device", Locations.display(served.spec.data())));
    rows.add(row("size", p.dataSize() / VerityParams.SECTOR_SIZE + " sectors"));
    rows.add(row("mode", "readonly"));
    rows.add(row("hash device", Locations.display(served.spec.hash())));
    // Where the tree starts (after the superblock), as the kernel's table and veritysetup show it.
    long hashStart = reader.layout().firstHashBlock() * p.hashBlockSize();
    rows.add(row("hash offset", hashStart / VerityParams.SECTOR_SIZE + " sectors"));
    rows.add(row("root hash", Hex.format(served.trusted.rootHash())));
    String flags = flags(served.spec);
    if (!flags.isEmpty()) {
      rows.add(row("flags", flags));
    }
    rows.add(row("identity", served.trusted.identity().toString()));
    rows.add(row("data blocks", Long.toString(p.dataBlocks())));
    rows.add(row("uri", uri));
    if (!served.spec.description().isEmpty()) {
      rows.add(row("description", served.spec.description()));
    }
    rows.add(
        row("io class", served.spec.ioClass().name().toLowerCase(Locale.ROOT).replace('_', '-')));
    rows.add(row("corruptions", Long.toString(stats.corruptions())));
    rows.add(row("repaired", Long.toString(stats.repaired())));
    rows.add(row("device errors", errors.truncated() + " truncated, " + errors.other() + " other"));
    if (errors.truncation() != null) {
      rows.add(row("truncated", errors.truncation()));
    }
    if (served.remote != null) {
      rows.addAll(RemoteReport.rows(errors.remoteDevices(), served.remote.stats()));
    }
    rows.add(row("inline reads", Long.toString(stats.inlineReads())));
    rows.add(row("pooled reads", Long.toString(stats.pooledReads())));
    rows.add(
        row(
            "cache",
            cache.cachedBytes()
                + " of "
                + cache.capacityBytes()
                + " bytes, "
                + cache.hits()
                + " hits, "
                + cache.misses()
                + " misses, "
                + cache.evictions()
                + " evictions"));
    rows.add(row("connections", Integer.toString(connections)));
    StringBuilder out = new StringBuilder(ServerLog.display(served.spec.name()) + " is active.\n");
    for (String[] r : rows) {
      out.append(String.format(Locale.ROOT, "  %-15s%s%n", r[0] + ":", r[1]));
    }
    corruptedBlocks(reader)
        .forEach(
            (e, times) ->
                out.append("  corrupted:     ")
                    .append(ServerLog.what(e))
                    .append(times > 1 ? " (" + times + " reads)" : "")
                    .append('\n'));
    return out.toString();
  }

  /**
   * verified, corrupted, truncated (clients get EIO past the new end: worse than a bad block) or
   * changed (a remote object was replaced under the server: every read of it fails).
   */
  private static String state(ServedExport served, SourceStats stats) {
    return served.deviceErrors.anyChanged()
        ? "changed"
        : served.deviceErrors.truncated() > 0
            ? "truncated"
            : stats.status() == 'V' ? "verified" : "corrupted";
  }

  /**
   * Each corrupted block once, with the reads it failed: a block read again fails again, and counts
   * again (as in dm-verity), but it is one corrupted block.
   */
  private static Map<CorruptBlockException, Integer> corruptedBlocks(VerifiedReader reader) {
    Map<String, CorruptBlockException> first = new LinkedHashMap<>();
    Map<CorruptBlockException, Integer> times = new LinkedHashMap<>();
    for (CorruptBlockException e : reader.firstCorruptions()) {
      times.merge(first.computeIfAbsent(e.area() + " " + e.block(), k -> e), 1, Integer::sum);
    }
    return times;
  }

  /**
   * The facts of {@link #text}, as one JSON object for {@code status --json}: the same values,
   * named as {@code format --json} and {@code verify --json} name them (sizes in bytes, not
   * sectors).
   */
  static Map<String, Object> json(ServedExport served, String uri, int connections) {
    VerifiedReader reader = served.reader();
    SourceStats stats = served.export.source().stats();
    VerityParams p = served.trusted.params();
    CacheStats cache = stats.cache();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("export", served.spec.name());
    m.put("active", true);
    m.put("type", "VERITY");
    m.put("status", stats.failedClosed() ? "corrupted" : state(served, stats));
    m.put("stopped", stats.failedClosed());
    m.put("hashType", p.hashFormat().code());
    m.put("dataBlockSize", p.dataBlockSize());
    m.put("hashBlockSize", p.hashBlockSize());
    m.put("hashAlgorithm", p.hashAlgorithm().kernelName());
    m.put("salt", ParamOverrides.saltText(p.salt()));
    m.put("dataDevice", Locations.display(served.spec.data()));
    m.put("dataSize", p.dataSize());
    m.put("mode", "readonly");
    m.put("hashDevice", Locations.display(served.spec.hash()));
    m.put("hashStart", reader.layout().firstHashBlock() * p.hashBlockSize());
    m.put("rootHash", Hex.format(served.trusted.rootHash()));
    String flags = flags(served.spec);
    m.put("flags", flags.isEmpty() ? List.of() : List.of(flags.split(" ")));
    m.put("identity", served.trusted.identity().toString());
    m.put("dataBlocks", p.dataBlocks());
    m.put("uri", uri);
    m.put("description", served.spec.description());
    m.put("ioClass", served.spec.ioClass().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    m.put("corruptions", stats.corruptions());
    m.put("repaired", stats.repaired());
    DeviceErrors errors = served.deviceErrors;
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("truncated", errors.truncated());
    d.put("other", errors.other());
    if (errors.truncation() != null) {
      d.put("truncation", errors.truncation());
    }
    m.put("deviceErrors", d);
    if (served.remote != null) {
      m.put("remote", RemoteReport.json(errors.remoteDevices(), served.remote.stats()));
    }
    m.put("inlineReads", stats.inlineReads());
    m.put("pooledReads", stats.pooledReads());
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("cachedBytes", cache.cachedBytes());
    c.put("capacityBytes", cache.capacityBytes());
    c.put("hits", cache.hits());
    c.put("misses", cache.misses());
    c.put("evictions", cache.evictions());
    m.put("cache", c);
    m.put("connections", connections);
    List<Object> corrupted = new ArrayList<>();
    for (var entry : corruptedBlocks(reader).entrySet()) { // as verify --json's "corruptions"
      CorruptBlockException e = entry.getKey();
      Map<String, Object> b = new LinkedHashMap<>();
      b.put("area", e.area().toString());
      b.put("block", e.block());
      b.put("position", e.ref().position(p));
      if (e.area() == Area.HASH) {
        b.put("level", e.level());
      }
      b.put("reads", entry.getValue());
      corrupted.add(b);
    }
    m.put("corruptedBlocks", corrupted);
    return m;
  }

  /** dm-verity's table flags, as veritysetup status shows them. */
  private static String flags(ExportConfig spec) {
    List<String> flags = new ArrayList<>();
    if (spec.mode() != CorruptionMode.EIO) {
      flags.add(
          spec.mode() == CorruptionMode.IGNORE
              ? "ignore_corruption"
              : spec.mode().name().toLowerCase(Locale.ROOT) + "_on_corruption");
    }
    if (spec.errorAsCorruption()) { // the kernel's table names it by the mode it follows
      flags.add(spec.mode().name().toLowerCase(Locale.ROOT) + "_on_error");
    }
    if (spec.ignoreZeroBlocks()) {
      flags.add("ignore_zero_blocks");
    }
    if (spec.checkAtMostOnce()) {
      flags.add("check_at_most_once");
    }
    return String.join(" ", flags);
  }

  private static String[] row(String label, String value) {
    return new String[] {label, value};
  }
}
