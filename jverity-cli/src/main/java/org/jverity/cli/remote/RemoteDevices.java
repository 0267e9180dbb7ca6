package org.jverity.cli.remote;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jverity.image.DeviceSource;
import org.jverity.image.Locations;
import org.jverity.io.BlockDevice;
import org.jverity.remote.OriginException;
import org.jverity.remote.RemoteOptions;
import org.jverity.remote.RemoteReport;
import org.jverity.remote.RemoteSource;

/**
 * The command line's side of jverity-remote: {@link RemoteArguments} made {@link RemoteOptions} and
 * a {@link RemoteSource}, the {@code "remote"} object of {@code --json}, the exit code of an
 * origin's failure. The one class of the command line that names jverity-remote's types: it is
 * loaded only once a location is remote. Stateless.
 */
public final class RemoteDevices {
  private RemoteDevices() {}

  /**
   * The options given, over {@link RemoteOptions#DEFAULTS}; for a server's export, whose devices
   * its server opens ({@code ExportConfig.remote}). Checks the files they name first.
   */
  public static RemoteOptions options(RemoteArguments a) {
    a.requireFiles();
    RemoteOptions o = RemoteOptions.DEFAULTS;
    if (a.cacheDir != null || a.cacheMax != null) {
      o = o.withCache(a.cacheDir, a.cacheMax != null ? a.cacheMax : o.cacheMax());
    }
    if (a.caCert != null) {
      o = o.withCaCert(a.caCert);
    }
    if (a.s3Endpoint != null) {
      o = o.withS3Endpoint(a.s3Endpoint);
    }
    if (a.reopen != null) {
      o = o.withOnChange(a.reopen ? RemoteOptions.OnChange.REOPEN : RemoteOptions.OnChange.FAIL);
    }
    return o;
  }

  static DeviceSource source(RemoteArguments a) {
    a.requireFiles();
    return new RemoteSource(options(a));
  }

  /**
   * One device a command opened.
   *
   * @param role "data", "hash", "file", "tree"
   * @param location where it was opened from
   * @param device the device, or null when it is not at hand (its location names it then)
   */
  public record Opened(String role, String location, BlockDevice device) {}

  /**
   * {@code --json}'s {@code "remote"} object for devices opened through {@code source}: each remote
   * one's role and origin, and the source's counters; null when {@code source} is not remote.
   */
  public static Map<String, Object> json(DeviceSource source, List<Opened> opened) {
    if (!(source instanceof RemoteSource remote)) {
      return null;
    }
    List<RemoteReport.Device> devices = new ArrayList<>();
    for (Opened o : opened) {
      if (Locations.isRemote(o.location())) {
        devices.add(
            new RemoteReport.Device(
                o.role(),
                o.device() != null
                    ? o.device().description()
                    : Locations.withoutQuery(o.location()),
                null));
      }
    }
    return RemoteReport.json(devices, remote.stats());
  }

  /**
   * The exit code of a failure from an origin, searched through {@code e}'s causes: {@code denied}
   * for 401 and 403 (credentials refused: wrong, expired), {@code other} for any other; -1 when no
   * origin failed.
   */
  public static int exitCode(Throwable e, int denied, int other) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof OriginException o) {
        return o.status() == 401 || o.status() == 403 ? denied : other;
      }
    }
    return -1;
  }
}
