package org.jverity.cli.remote;

import java.nio.file.Path;
import org.jverity.cli.command.Checks;
import org.jverity.cli.syntax.BadValue;
import org.jverity.cli.syntax.ByteSize;
import org.jverity.cli.syntax.Syntax;
import org.jverity.image.DeviceSource;
import org.jverity.image.Locations;

/**
 * How the devices at a URL are reached and cached, as {@code read}, {@code verify}, {@code open},
 * {@code cat}, {@code digest} take them and {@code serve}'s export sections and {@code [generic]}
 * as keys: {@code --cache-dir}, {@code --cache-max}, {@code --ca-cert}, {@code --s3-endpoint},
 * {@code --on-change}. Values only, checked as they are parsed: jverity-remote's {@code
 * RemoteOptions} are made from them ({@link RemoteDevices}) only when a location is remote, so a
 * command over local files loads nothing of it. Filled by the parser, then read once.
 */
public final class RemoteArguments {
  /**
   * {@code RemoteOptions.DEFAULTS.cacheMax()}, for help without loading it ({@code
   * RemoteArgumentsTest}).
   */
  static final String DEFAULT_CACHE_MAX = "256M";

  public Path cacheDir;
  public Long cacheMax;
  public Path caCert;
  public String s3Endpoint;

  /** Null: the default (fail). */
  public Boolean reopen;

  public static final Syntax<RemoteArguments> SYNTAX =
      Syntax.<RemoteArguments>group()
          .file(
              "--cache-dir",
              "DIR",
              "Remote devices (http://, https://, s3:// locations): keep the chunks fetched in DIR,"
                  + " across runs (default: in memory only). Untrusted as the origin: every block is verified.",
              (r, p) -> r.cacheDir = p)
          .option(
              "--cache-max",
              "BYTES",
              "Remote devices: the cache's bound (default " + DEFAULT_CACHE_MAX + ").",
              (r, v) -> r.cacheMax = cacheMax(v))
          .file(
              "--ca-cert",
              "FILE",
              "https:// origins: trust the CA certificates in this PEM file instead of the system's.",
              (r, p) -> r.caCert = p)
          .option(
              "--s3-endpoint",
              "URL",
              "s3:// locations: the S3 endpoint, path-style (default: AWS_ENDPOINT_URL_S3,"
                  + " AWS_ENDPOINT_URL, else AWS's for the region).",
              (r, v) -> r.s3Endpoint = endpoint(v))
          .option(
              "--on-change",
              "fail|reopen",
              "A remote object replaced while in use: fail (default: EIO, said once) or reopen"
                  + " (continue if the new object verifies against the same root hash; a server logs each"
                  + " reopen: export, URL, old and new ETag).",
              (r, v) -> r.reopen = onChange(v));

  /** {@code export}'s values, and {@code generic}'s where it gives none: a config's sections. */
  public static RemoteArguments over(RemoteArguments generic, RemoteArguments export) {
    RemoteArguments r = new RemoteArguments();
    r.cacheDir = export.cacheDir != null ? export.cacheDir : generic.cacheDir;
    r.cacheMax = export.cacheMax != null ? export.cacheMax : generic.cacheMax;
    r.caCert = export.caCert != null ? export.caCert : generic.caCert;
    r.s3Endpoint = export.s3Endpoint != null ? export.s3Endpoint : generic.s3Endpoint;
    r.reopen = export.reopen != null ? export.reopen : generic.reopen;
    return r;
  }

  /**
   * The source for these locations: {@code local} when none is remote (nothing of jverity-remote
   * loaded), else a {@code RemoteSource} with these options, which the caller closes ({@link
   * RemoteDevices#close}) after the devices.
   */
  public DeviceSource source(DeviceSource local, String... locations) {
    if (!Locations.anyRemote(locations)) {
      return local;
    }
    return RemoteDevices.source(this);
  }

  /**
   * A source for reading trusted metadata at {@code location} before a server opens its devices (an
   * AVB vbmeta, a DDI's GPT and signature partition): these options with no cache directory, its
   * chunks kept in memory only, so that a cache directory a running server holds (a reload) stays
   * the server's. The caller closes it ({@link #close}).
   */
  public DeviceSource inMemorySource(DeviceSource local, String location) {
    RemoteArguments inMemory = over(this, new RemoteArguments());
    inMemory.cacheDir = null;
    return inMemory.source(local, location);
  }

  /** The files these options name, checked before anything is fetched: {@code --ca-cert}. */
  public void requireFiles() {
    if (caCert != null) {
      Checks.requireFile(caCert, "CA certificate");
    }
  }

  /**
   * Closes {@code source} when it is a remote one, after its devices (a local one is shared): asked
   * of the interface, so that closing a local source loads nothing remote.
   */
  public static void close(DeviceSource source) {
    if (source instanceof AutoCloseable c) { // only a RemoteSource is
      try {
        c.close();
      } catch (Exception e) {
        // read-only: closing loses nothing
      }
    }
  }

  private static long cacheMax(String v) {
    long bytes = ByteSize.parse(v);
    if (bytes < 1) {
      throw new BadValue("at least 1 byte");
    }
    return bytes;
  }

  private static String endpoint(String v) {
    if (!v.startsWith("http://") && !v.startsWith("https://")
        || v.indexOf("://") + 3 == v.length()) {
      throw new BadValue("an http:// or https:// URL");
    }
    return v;
  }

  private static Boolean onChange(String v) {
    return switch (v) {
      case "fail" -> false;
      case "reopen" -> true;
      default -> throw new BadValue("fail or reopen");
    };
  }
}
