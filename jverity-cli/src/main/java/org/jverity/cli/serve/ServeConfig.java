package org.jverity.cli.serve;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import org.jverity.fec.ReedSolomon;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.IoClass;
import org.jverity.cli.syntax.BadValue;
import org.jverity.cli.syntax.ByteSize;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.verity.CorruptionOptions;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.verity.FecOptions;
import org.jverity.cli.syntax.IoClassName;
import org.jverity.server.Endpoint;
import org.jverity.cli.syntax.Port;
import org.jverity.cli.verity.RootHashSignatureOptions;
import org.jverity.cli.verity.RootHashes;
import org.jverity.server.MetricsConfig;
import org.jverity.server.ServerException;
import org.jverity.server.TlsConfig;
import org.jverity.server.TlsMode;
import org.jverity.cli.syntax.TimeSpan;
import org.jverity.cli.verity.VerityOptions;
import org.jverity.server.ExportConfig;
import java.util.function.Supplier;

/**
 * {@code serve}'s config file, nbd-server's layout: a {@code [generic]} section for the server
 * (bind, port, socket, cache-size, max-connections, idle-timeout, max-in-flight, runtime-dir), then
 * one section per export named by it, with {@code data}, {@code hash}, {@code root-hash} or
 * {@code root-hash-file} (hex or an identity), {@code root-hash-signature} with {@code
 * trusted-cert} (one PEM file, which may hold several certificates: an INI key is given once),
 * {@code description}, {@code io-class}, the tree options as {@code open} spells them without the
 * dashes ({@code hash-algorithm} for {@code --hash}) and dm-verity's flags as {@code key = true}.
 * Relative paths are relative to the config file's directory. Every refusal names file:line and the
 * key, exit 3. Immutable once read.
 *
 * @param listening the server's settings
 * @param exports the exports, in file order
 */
public record ServeConfig(Endpoint listening, List<ExportConfig> exports) {
  static final String GENERIC = "generic";

  /** The keys of [generic], in the order help lists them. */
  public static final List<String> GENERIC_KEYS = List.of("bind", "port", "socket", "cache-size", "max-connections",
      "idle-timeout", "max-in-flight", "runtime-dir", "tls", "tls-certificates", "tls-verify-peer", "metrics-port",
      "metrics-bind");
  /** The keys of an export's section, in the order help lists them. */
  public static final List<String> EXPORT_KEYS = List.of("data", "hash", "root-hash", "root-hash-file",
      "root-hash-signature", "trusted-cert", "description", "io-class", "hash-algorithm", "data-block-size", "hash-block-size", "data-blocks",
      "hash-offset", "salt", "format", "no-superblock", "ignore-corruption", "restart-on-corruption",
      "panic-on-corruption", "ignore-zero-blocks", "check-at-most-once", "fec-device", "fec-offset", "fec-roots");

  /** Reads the config; {@code runtimeDir} (from the command line, may be null) wins over the file's. */
  static ServeConfig read(IniFile ini, Path baseDir, Path runtimeDir) throws IOException {
    Endpoint listening = null;
    List<ExportConfig> exports = new ArrayList<>();
    for (IniFile.Section s : ini.sections()) {
      if (s.name().equals(GENERIC)) {
        listening = generic(new Keys(ini, s, baseDir), runtimeDir);
      } else {
        exports.add(export(new Keys(ini, s, baseDir)));
      }
    }
    if (exports.isEmpty()) {
      throw new CliException(ExitCode.INVALID_PARAMETER, ini.file()
          + ": no export (expected: at least one [name] section besides [generic])");
    }
    if (listening == null) {
      listening = new Endpoint("127.0.0.1", Port.NBD, null, false, HashBlockCache.DEFAULT_CAPACITY_BYTES,
          Endpoint.limits(null, null, null, ""), runtimeDir, TlsConfig.OFF, MetricsConfig.NONE);
    }
    return new ServeConfig(listening, List.copyOf(exports));
  }

  private static Endpoint generic(Keys k, Path runtimeDir) {
    k.allow(Set.copyOf(GENERIC_KEYS));
    Path socket = k.path("socket");
    if (socket != null && (k.has("bind") || k.has("port"))) {
      throw k.error("socket", "a Unix socket instead of TCP (expected: no bind or port with it)");
    }
    long cacheSize = k.value("cache-size", ByteSize::parse, ByteSize.EXPECTED, HashBlockCache.DEFAULT_CAPACITY_BYTES);
    if (cacheSize < 1) {
      throw k.error("cache-size", "0 (expected: at least 1 byte)");
    }
    Integer maxConnections = k.value("max-connections", ServeConfig::positive, POSITIVE, null);
    Integer maxInFlight = k.value("max-in-flight", ServeConfig::positive, POSITIVE, null);
    Duration idle = k.value("idle-timeout", TimeSpan::parse, TimeSpan.EXPECTED, null);
    var limits = Endpoint.limits(maxConnections, maxInFlight, idle, "");
    Path dir = runtimeDir != null ? runtimeDir : k.path("runtime-dir");
    Integer metricsPort = k.value("metrics-port", Port::parse, Port.EXPECTED, null);
    TlsConfig tls = k.at("tls", () -> TlsConfig.of(k.text("tls", "off"), k.path("tls-certificates"),
        k.flag("tls-verify-peer"), ""));
    MetricsConfig metrics = k.at("tls", () -> MetricsConfig.of(k.text("metrics-bind", "127.0.0.1"), metricsPort, ""));
    if (tls.mode() == TlsMode.REQUIRE && socket != null) {
      throw k.error("tls", "require (expected: off or on with a Unix socket: no client could start TLS there)");
    }
    return new Endpoint(k.text("bind", "127.0.0.1"), k.value("port", Port::parse, Port.EXPECTED, Port.NBD), socket,
        false, cacheSize, limits, dir, tls, metrics);
  }

  private static ExportConfig export(Keys k) throws IOException {
    k.allow(Set.copyOf(EXPORT_KEYS));
    Path data = k.existing(k.requiredPath("data", "the data image's path"), "data", "data");
    Path hash = k.existing(k.requiredPath("hash", "the hash device's path"), "hash", "hash");
    if (k.has("root-hash") == k.has("root-hash-file")) {
      throw k.sectionError("root-hash or root-hash-file: " + (k.has("root-hash") ? "both" : "neither")
          + " given (expected: exactly one)");
    }
    String rootText = k.has("root-hash") ? k.text("root-hash", null) : RootHashes.text("serve", null,
        k.existing(k.path("root-hash-file"), "root-hash-file", "root hash"));
    RootHashSignatureOptions signature = null; // checked when the export opens, before the server listens
    if (k.has("root-hash-signature") && k.has("trusted-cert")) {
      signature = RootHashSignatureOptions.of(k.existing(k.path("root-hash-signature"), "root-hash-signature",
          "root hash signature"), List.of(k.existing(k.path("trusted-cert"), "trusted-cert", "certificate")));
    } else if (k.has("root-hash-signature") || k.has("trusted-cert")) {
      String given = k.has("root-hash-signature") ? "root-hash-signature" : "trusted-cert";
      String missing = k.has("root-hash-signature") ? "trusted-cert" : "root-hash-signature";
      throw k.error(given, "given without " + missing + " (expected: " + missing + " too)");
    }
    VerityOptions o = new VerityOptions();
    o.hash = k.text("hash-algorithm", null);
    o.dataBlockSize = k.value("data-block-size", Long::parseLong, "a whole number", null);
    o.hashBlockSize = k.value("hash-block-size", Long::parseLong, "a whole number", null);
    o.dataBlocks = k.value("data-blocks", Long::parseLong, "a whole number", null);
    o.hashOffset = k.value("hash-offset", Long::parseLong, "a whole number", null);
    o.salt = k.text("salt", null);
    o.format = k.value("format", Long::parseLong, "0 or 1", null);
    o.noSuperblock = k.flag("no-superblock");
    var mode = k.at("ignore-corruption", () -> CorruptionOptions.mode(k.flag("ignore-corruption"),
        k.flag("restart-on-corruption"), k.flag("panic-on-corruption"), "", ""));
    IoClass io = k.value("io-class", IoClassName::parse, IoClassName.EXPECTED, IoClass.BEST_EFFORT);
    FecOptions fec = null;
    if (k.has("fec-device")) {
      fec = new FecOptions();
      fec.device = k.existing(k.path("fec-device"), "fec-device", "FEC");
      fec.offset = k.value("fec-offset", Long::parseLong, "a whole number of bytes", 0L);
      fec.roots = k.value("fec-roots", Integer::parseInt,
          ReedSolomon.MIN_ROOTS + " to " + ReedSolomon.MAX_ROOTS, ReedSolomon.DEFAULT_ROOTS);
    } else if (k.has("fec-offset") || k.has("fec-roots")) {
      throw k.error(k.has("fec-offset") ? "fec-offset" : "fec-roots", "given without fec-device (expected: fec-device too)");
    }
    return new ExportConfig(k.section.name(), k.text("description", ""), data, hash, rootText, o.overrides(),
        ExportChecks.signature(signature), mode, k.flag("ignore-zero-blocks"),
        k.flag("check-at-most-once"), io, fec == null ? null : fec.source());
  }

  /** The keys of one section, read with their line numbers at hand for messages. */
  private record Keys(IniFile ini, IniFile.Section section, Path baseDir) {
    void allow(Set<String> known) {
      for (IniFile.Entry e : section.entries().values()) {
        if (!known.contains(e.key())) {
          List<String> sorted = known.stream().sorted().toList();
          throw new CliException(ExitCode.INVALID_PARAMETER, ini.at(e.line()) + e.key() + ": unknown key in ["
              + section.name() + "] (expected: one of " + String.join(", ", sorted) + ")");
        }
      }
    }

    boolean has(String key) {
      return section.entries().containsKey(key);
    }

    String text(String key, String otherwise) {
      IniFile.Entry e = section.entries().get(key);
      return e == null ? otherwise : e.value();
    }

    <T> T value(String key, Function<String, T> parse, String expected, T otherwise) {
      IniFile.Entry e = section.entries().get(key);
      if (e == null) {
        return otherwise;
      }
      try {
        return parse.apply(e.value());
      } catch (RuntimeException bad) { // BadValue, NumberFormatException
        throw error(key, (e.value().isEmpty() ? "\"\"" : e.value()) + " (expected: " + expected + ")");
      }
    }

    boolean flag(String key) {
      return value(key, ServeConfig::flag, "true or false", false);
    }

    Path path(String key) {
      String v = text(key, null);
      if (v == null) {
        return null;
      }
      if (v.isEmpty()) {
        throw error(key, "\"\" (expected: a file name)");
      }
      Path p = value(key, Path::of, "a file name", null);
      return baseDir.resolve(p);
    }

    /**
     * {@code file}, which {@code key} names, checked to exist and be readable now: a missing file
     * found when the export opens would lose the file, line and key that named it.
     */
    Path existing(Path file, String key, String what) {
      try {
        Checks.requireFile(file, what);
      } catch (CliException e) {
        throw new CliException(e.exitCode(), ini.at(section.entries().get(key).line()) + "[" + section.name() + "] "
            + key + ": " + e.getMessage());
      }
      return file;
    }

    Path requiredPath(String key, String expected) {
      if (!has(key)) {
        throw sectionError(key + ": missing (expected: " + expected + ")");
      }
      return path(key);
    }

    /** Runs a check whose CliException is about {@code key}: prefixes file:line. */
    <T> T at(String key, Supplier<T> check) {
      try {
        return check.get();
      } catch (CliException | ServerException e) {
        IniFile.Entry entry = section.entries().get(key);
        int line = entry == null ? section.line() : entry.line();
        throw new CliException(ExitCode.INVALID_PARAMETER, ini.at(line) + e.getMessage());
      }
    }

    CliException error(String key, String message) {
      return new CliException(ExitCode.INVALID_PARAMETER, ini.at(section.entries().get(key).line()) + key + ": " + message);
    }

    CliException sectionError(String message) {
      return new CliException(ExitCode.INVALID_PARAMETER, ini.at(section.line()) + "[" + section.name() + "]: " + message);
    }
  }

  private static final String POSITIVE = "a whole number from 1 to " + Integer.MAX_VALUE;

  private static int positive(String text) {
    int n = Integer.parseInt(text);
    if (n < 1) {
      throw new BadValue(POSITIVE);
    }
    return n;
  }

  /** true/yes/on/1 or false/no/off/0, as nbd-server and systemd accept. */
  static boolean flag(String text) {
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "on", "1" -> true;
      case "false", "no", "off", "0" -> false;
      default -> throw new BadValue("true or false");
    };
  }
}
