package org.jverity.remote;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code status}, {@code read --json} and {@code verify --json} say of an image's remote
 * devices: each device's origin (its description: no credentials, no signed query) and whether its
 * object changed since open; then the origin traffic of the image's {@code RemoteSource}, which its
 * devices share (requests, bytes, cache hits, misses and evictions, retries, failures, rereads).
 * Stateless.
 */
public final class RemoteReport {
  private RemoteReport() {}

  /**
   * One remote device.
   *
   * @param role "data", "hash" or "fec"
   * @param origin its origin's description
   * @param changed "data object changed since open: ETag A -> B", or null while it has not
   */
  public record Device(String role, String origin, String changed) {}

  /** As {@code --json} and {@code status --json} name them: a {@code "remote"} object. */
  public static Map<String, Object> json(List<Device> devices, RemoteStats s) {
    Map<String, Object> m = new LinkedHashMap<>();
    List<Object> list = new ArrayList<>();
    for (Device d : devices) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("role", d.role());
      o.put("origin", d.origin());
      if (d.changed() != null) {
        o.put("changed", d.changed());
      }
      list.add(o);
    }
    m.put("devices", list);
    m.put("requests", s.requests.sum());
    m.put("bytes", s.bytes.sum());
    m.put("cacheHits", s.cacheHits.sum());
    m.put("cacheMisses", s.cacheMisses.sum());
    m.put("cacheEvictions", s.cacheEvictions.sum());
    m.put("retries", s.retries.sum());
    m.put("failures", s.failures.sum());
    m.put("rereads", s.rereads.sum());
    m.put("latencySeconds", s.latencySeconds());
    return m;
  }

  /** As {@code status} prints them: label and value, after the export's device rows. */
  public static List<String[]> rows(List<Device> devices, RemoteStats s) {
    List<String[]> rows = new ArrayList<>();
    for (Device d : devices) {
      rows.add(new String[] {d.role() + " origin", d.origin()});
    }
    rows.add(
        new String[] {
          "origin",
          s.requests.sum()
              + " requests, "
              + s.bytes.sum()
              + " bytes, "
              + s.retries.sum()
              + " retries, "
              + s.failures.sum()
              + " failures, "
              + s.rereads.sum()
              + " rereads"
        });
    rows.add(
        new String[] {
          "origin cache",
          s.cacheHits.sum()
              + " hits, "
              + s.cacheMisses.sum()
              + " misses, "
              + s.cacheEvictions.sum()
              + " evictions"
        });
    for (Device d : devices) {
      if (d.changed() != null) {
        rows.add(new String[] {"changed", d.changed()});
      }
    }
    return rows;
  }
}
