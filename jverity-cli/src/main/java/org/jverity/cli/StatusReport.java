package org.jverity.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.verify.CacheStats;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.VerificationScheduler;
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
    VerificationScheduler scheduler = served.scheduler();
    VerityParams p = served.trusted.params();
    CacheStats cache = reader.cacheStats();
    List<String[]> rows = new ArrayList<>();
    rows.add(row("type", "VERITY"));
    DeviceErrors errors = served.deviceErrors;
    rows.add(row("status", reader.failedClosed() ? "corrupted (stopped)"
        : errors.truncated() > 0 ? "truncated" // clients get EIO past the new end: worse than a bad block
        : reader.status() == 'V' ? "verified" : "corrupted"));
    rows.add(row("hash type", Integer.toString(p.hashFormat().code())));
    rows.add(row("data block", Integer.toString(p.dataBlockSize())));
    rows.add(row("hash block", Integer.toString(p.hashBlockSize())));
    rows.add(row("hash name", p.hashAlgorithm().kernelName()));
    rows.add(row("salt", p.saltSize() == 0 ? "-" : Hex.format(p.salt())));
    rows.add(row("data device", served.spec.data().toAbsolutePath().toString()));
    rows.add(row("size", p.dataSize() / VerityParams.SECTOR_SIZE + " sectors"));
    rows.add(row("mode", "readonly"));
    rows.add(row("hash device", served.spec.hash().toAbsolutePath().toString()));
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
    rows.add(row("io class", served.spec.ioClass().name().toLowerCase(Locale.ROOT).replace('_', '-')));
    rows.add(row("corruptions", Long.toString(reader.corruptionCount())));
    rows.add(row("repaired", Long.toString(reader.repairedCount())));
    rows.add(row("device errors", errors.truncated() + " truncated, " + errors.other() + " other"));
    if (errors.truncation() != null) {
      rows.add(row("truncated", errors.truncation()));
    }
    rows.add(row("inline reads", Long.toString(scheduler.inlineRequests())));
    rows.add(row("pooled reads", Long.toString(scheduler.pooledRequests())));
    rows.add(row("cache", cache.cachedBytes() + " of " + cache.capacityBytes() + " bytes, " + cache.hits()
        + " hits, " + cache.misses() + " misses, " + cache.evictions() + " evictions"));
    rows.add(row("connections", Integer.toString(connections)));
    StringBuilder out = new StringBuilder(served.spec.name() + " is active.\n");
    for (String[] r : rows) {
      out.append(String.format(Locale.ROOT, "  %-15s%s%n", r[0] + ":", r[1]));
    }
    for (var e : reader.firstCorruptions()) {
      out.append("  corrupted:     ").append(ServerLog.what(e)).append('\n');
    }
    return out.toString();
  }

  /** dm-verity's table flags, as veritysetup status shows them. */
  private static String flags(ExportSpec spec) {
    List<String> flags = new ArrayList<>();
    if (spec.mode() != CorruptionMode.EIO) {
      flags.add(spec.mode() == CorruptionMode.IGNORE ? "ignore_corruption"
          : spec.mode().name().toLowerCase(Locale.ROOT) + "_on_corruption");
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
