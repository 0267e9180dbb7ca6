package org.jverity.cli.serve;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.verify.AvbPartition;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.ddi.DdiOpenOptions;
import org.jverity.cli.remote.RemoteArguments;
import org.jverity.cli.remote.RemoteDevices;
import org.jverity.cli.syntax.BadValue;
import org.jverity.cli.syntax.Location;
import org.jverity.cli.syntax.Port;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.verity.AvbOptions;
import org.jverity.cli.verity.RootHashes;
import org.jverity.ddi.DdiFormatException;
import org.jverity.ddi.ServedPartition;
import org.jverity.ddi.gpt.GptFormatException;
import org.jverity.image.Locations;
import org.jverity.remote.RemoteOptions;
import org.jverity.server.Endpoint;
import org.jverity.server.ExportConfig;
import org.jverity.server.ExportRoot;
import org.jverity.server.MetricsConfig;
import org.jverity.server.ServerException;
import org.jverity.server.ServerLog;
import org.jverity.server.TlsConfig;
import org.jverity.server.TlsMode;
import org.jverity.sig.InvalidSignatureException;
import org.jverity.verify.HashBlockCache;

/**
 * {@code serve}'s config file, nbd-server's layout: a {@code [generic]} section for the server
 * (bind, port, socket, cache-size, max-connections, idle-timeout, max-in-flight, runtime-dir), then
 * one section per export named by it, with {@code data}, {@code hash}, {@code root-hash} or {@code
 * root-hash-file} (hex or an identity), {@code root-hash-signature} with {@code trusted-cert} (one
 * PEM file, which may hold several certificates: an INI key is given once), {@code description},
 * {@code io-class}, the tree options as {@code open} spells them without the dashes ({@code
 * hash-algorithm} for {@code --hash}) and dm-verity's flags as {@code key = true}. The keys are
 * {@code open}'s options: both read through the same declarations ({@link EndpointOptions}, {@link
 * ExportOptions}), so an option added to {@code open} is a key here too. Relative paths are
 * relative to the config file's directory. An AVB partition image's section has {@code data} and
 * {@code avb-key} (a key file or {@code none}) instead of {@code hash} and the root hash: its
 * vbmeta is checked when the config is read ({@link AvbExports}). Every refusal names file:line and
 * the key, exit 3 (an AVB image refused: the AVB exit codes). Immutable once read.
 *
 * @param listening the server's settings
 * @param exports the exports, in file order
 */
public record ServeConfig(Endpoint listening, List<ExportConfig> exports) {
  static final String GENERIC = "generic";

  /** An AVB partition image's key ({@link AvbOptions}): its vbmeta gives hash, root hash, FEC. */
  static final String AVB_KEY = "avb-key";

  /**
   * A DDI's key: the disk image whose GPT gives the data and hash partitions ({@link DdiExports}).
   */
  static final String DDI_KEY = "ddi";

  /** The keys that choose a DDI's partition and its trust ({@link DdiOpenOptions}). */
  private static final List<String> DDI_OPTION_KEYS = List.of("partition", "arch", "cert-dir");

  /**
   * The keys an export's section has that are {@code open}'s arguments, not its options, and a
   * DDI's: read here.
   */
  private static final List<String> IMAGE_KEYS =
      Stream.concat(
              Stream.of("data", "hash", "root-hash", "root-hash-file", AVB_KEY, DDI_KEY),
              DDI_OPTION_KEYS.stream())
          .toList();

  /** The keys of [generic], in the order help lists them. */
  public static final List<String> GENERIC_KEYS = EndpointOptions.KEYS.keys();

  /** The keys of an export's section, in the order help lists them. */
  public static final List<String> EXPORT_KEYS =
      Stream.concat(IMAGE_KEYS.stream(), ExportOptions.KEYS.keys().stream()).toList();

  /** The declarations of [generic]'s keys, for the config file's manual page. */
  public static Syntax<?> genericKeys() {
    return EndpointOptions.KEYS;
  }

  /** The declarations of a DDI's keys besides {@code ddi}: {@code open}'s DDI options. */
  public static Syntax<?> ddiKeys() {
    return DdiOpenOptions.SYNTAX;
  }

  /** The declarations of an export's option keys (not {@link #EXPORT_KEYS}' image keys). */
  public static Syntax<?> exportKeys() {
    return ExportOptions.KEYS;
  }

  /**
   * Reads the config; {@code runtimeDir} (from the command line, may be null) wins over the file's.
   */
  static ServeConfig read(IniFile ini, Path baseDir, Path runtimeDir) throws IOException {
    return read(ini, baseDir, runtimeDir, new PrintWriter(Writer.nullWriter()));
  }

  /**
   * As {@link #read(IniFile, Path, Path)}, saying on {@code err} what an export accepts that is not
   * verified: an unsigned AVB image under {@code avb-key = none}.
   */
  static ServeConfig read(IniFile ini, Path baseDir, Path runtimeDir, PrintWriter err)
      throws IOException {
    Endpoint listening = null;
    RemoteArguments remote = new RemoteArguments(); // [generic]'s, which each export may override
    for (IniFile.Section s : ini.sections()) {
      if (s.name().equals(GENERIC)) { // first: an export's remote keys fall back on its
        EndpointOptions e = new Keys(ini, s, baseDir).options();
        listening = generic(new Keys(ini, s, baseDir), e, runtimeDir);
        remote = e.remote;
      }
    }
    List<ExportConfig> exports = new ArrayList<>();
    for (IniFile.Section s : ini.sections()) {
      if (!s.name().equals(GENERIC)) {
        Keys k = new Keys(ini, s, baseDir);
        exports.add(
            k.has(DDI_KEY)
                ? ddiExport(k, remote)
                : k.has(AVB_KEY) ? avbExport(k, remote, err) : export(k, remote));
      }
    }
    if (exports.isEmpty()) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER,
          ini.file() + ": no export (expected: at least one [name] section besides [generic])");
    }
    if (listening == null) {
      listening =
          new Endpoint(
              "127.0.0.1",
              Port.NBD,
              null,
              false,
              HashBlockCache.DEFAULT_CAPACITY_BYTES,
              Endpoint.limits(null, null, null),
              runtimeDir,
              TlsConfig.OFF,
              MetricsConfig.NONE);
    }
    return new ServeConfig(listening, List.copyOf(exports));
  }

  private static Endpoint generic(Keys k, EndpointOptions e, Path runtimeDir) {
    if (e.socket != null && (k.has("bind") || k.has("port"))) {
      throw k.error("socket", "a Unix socket instead of TCP (expected: no bind or port with it)");
    }
    k.at(
        EndpointOptions.KEYS,
        "cache-size",
        () -> {
          Checks.requireCacheSize(e.cacheSize);
          return null;
        });
    var limits =
        k.at(
            EndpointOptions.KEYS,
            null,
            () -> Endpoint.limits(e.maxConnections, e.maxInFlight, e.idleTimeout));
    Path dir = runtimeDir != null ? runtimeDir : e.runtimeDir;
    TlsConfig tls =
        k.at(
            EndpointOptions.KEYS,
            "tls",
            () -> TlsConfig.of(e.tls, e.tlsCertificates, e.tlsVerifyPeer));
    MetricsConfig metrics =
        k.at(EndpointOptions.KEYS, null, () -> MetricsConfig.of(e.metricsBind, e.metricsPort));
    if (tls.mode() == TlsMode.REQUIRE && e.socket != null) {
      throw k.error(
          "tls",
          "require (expected: off or on with a Unix socket: no client could start TLS there)");
    }
    return new Endpoint(e.bind, e.port, e.socket, false, e.cacheSize, limits, dir, tls, metrics);
  }

  private static ExportConfig export(Keys k, RemoteArguments generic) throws IOException {
    refuseDdiKeys(k);
    ExportOptions o = k.read(ExportOptions.KEYS, new ExportOptions(), Set.copyOf(IMAGE_KEYS));
    String data = k.location("data", "the data image's path", "data");
    String hash = k.location("hash", "the hash device's path", "hash");
    if (k.has("root-hash") == k.has("root-hash-file")) {
      throw k.sectionError(
          "root-hash or root-hash-file: "
              + (k.has("root-hash") ? "both" : "neither")
              + " given (expected: exactly one)");
    }
    String rootText =
        k.has("root-hash")
            ? k.text("root-hash")
            : RootHashes.text(
                "serve", null, k.existing(k.path("root-hash-file"), "root-hash-file", "root hash"));
    // the signature is checked when the export opens, before the server listens
    if (k.has("root-hash-signature") && k.has("trusted-cert")) {
      k.existing(o.signature.signature, "root-hash-signature", "root hash signature");
      k.existing(o.signature.trusted.getFirst(), "trusted-cert", "certificate");
    } else if (k.has("root-hash-signature") || k.has("trusted-cert")) {
      String given = k.has("root-hash-signature") ? "root-hash-signature" : "trusted-cert";
      String missing = k.has("root-hash-signature") ? "trusted-cert" : "root-hash-signature";
      throw k.error(given, "given without " + missing + " (expected: " + missing + " too)");
    }
    var mode = k.at(ExportOptions.KEYS, "ignore-corruption", () -> o.corruption.mode());
    boolean errorAsCorruption =
        k.at(ExportOptions.KEYS, "error-as-corruption", () -> o.corruption.errorAsCorruption());
    if (o.fec.given()) {
      Path fec = Locations.file(o.fec.device);
      if (fec != null) {
        k.existing(fec, "fec-device", "FEC");
      }
    } else if (k.has("fec-offset") || k.has("fec-roots")) {
      throw k.error(
          k.has("fec-offset") ? "fec-offset" : "fec-roots",
          "given without fec-device (expected: fec-device too)");
    }
    return new ExportConfig(
        k.section.name(),
        o.description,
        data,
        hash,
        new ExportRoot.Given(rootText, o.tree.overrides()),
        ExportChecks.signature(o.signature),
        mode,
        errorAsCorruption,
        o.corruption.ignoreZeroBlocks,
        o.corruption.checkAtMostOnce,
        o.ioClass,
        o.fec.given() ? o.fec.source() : null,
        remote(k, data, hash, o.fec.given() ? o.fec.device : null, generic, o.remote),
        null);
  }

  /**
   * The export of an AVB partition image ({@link AvbExports}): {@code data} and {@code avb-key}
   * ("none", or a key file relative to the config's directory); the keys its vbmeta gives instead
   * are refused, naming the first. A vbmeta that does not verify against the key is refused naming
   * the section's {@code avb-key}, with its exit code.
   */
  private static ExportConfig avbExport(Keys k, RemoteArguments generic, PrintWriter err)
      throws IOException {
    for (String key : AvbOptions.conflictingKeys()) {
      if (k.has(key)) {
        throw k.error(
            key,
            "given with "
                + AVB_KEY
                + " (expected: none; the image's vbmeta gives the hash tree, root hash and FEC)");
      }
    }
    refuseDdiKeys(k);
    ExportOptions o = k.read(ExportOptions.KEYS, new ExportOptions(), Set.copyOf(IMAGE_KEYS));
    if (!k.has("data")) {
      throw k.sectionError("data: missing (expected: the AVB partition image's path)");
    }
    String data = k.location("data", "the AVB partition image's path", "data");
    String keyText = k.text(AVB_KEY);
    Path keyFile = null;
    if (!keyText.equals(AvbOptions.UNSIGNED)) {
      keyFile = k.existing(k.path(AVB_KEY), AVB_KEY, "AVB key");
    }
    String key = keyFile == null ? AvbOptions.UNSIGNED : keyFile.toString();
    RemoteOptions remote = remote(k, data, data, null, generic, o.remote); // its files checked
    AvbPartition partition;
    try { // a refusal names the line, keeping its kind (and so its exit code)
      partition = AvbExports.resolve(data, key, RemoteArguments.over(generic, o.remote));
    } catch (AvbVerificationException e) {
      throw new AvbVerificationException(k.at(AVB_KEY) + e.getMessage());
    } catch (AvbFormatException e) {
      throw new AvbFormatException(k.at(AVB_KEY) + e.getMessage());
    } catch (CliException e) {
      throw new CliException(e.exitCode(), k.at(AVB_KEY) + e.getMessage());
    }
    String notice =
        AvbOptions.unsignedNotice(partition, data, AVB_KEY + " = " + AvbOptions.UNSIGNED);
    if (notice != null) {
      err.println("jverity: export " + ServerLog.display(k.section.name()) + ": " + notice);
      err.flush();
    }
    var mode = k.at(ExportOptions.KEYS, "ignore-corruption", () -> o.corruption.mode());
    boolean errorAsCorruption =
        k.at(ExportOptions.KEYS, "error-as-corruption", () -> o.corruption.errorAsCorruption());
    return AvbExports.config(
        k.section.name(),
        o.description,
        data,
        partition,
        keyFile,
        mode,
        errorAsCorruption,
        o.corruption.ignoreZeroBlocks,
        o.corruption.checkAtMostOnce,
        o.ioClass,
        remote);
  }

  /** A DDI's keys in a section without {@code ddi}: they would be silently ignored. */
  private static void refuseDdiKeys(Keys k) {
    for (String key : DDI_OPTION_KEYS) {
      if (k.has(key)) {
        throw k.error(
            key, "given without " + DDI_KEY + " (expected: " + DDI_KEY + " = IMAGE.raw too)");
      }
    }
  }

  /**
   * The export of a DDI's root or usr partition ({@link DdiExports}): {@code ddi} (a path or URL),
   * and {@code partition}, {@code arch}, {@code cert-dir} and {@code root-hash-file} as {@code
   * open}'s options; the keys its GPT and signature partition give instead are refused, naming the
   * first. Its trust is established when the config is read (and on each reload); a refusal names
   * the section's {@code ddi} line, with its exit code.
   */
  private static ExportConfig ddiExport(Keys k, RemoteArguments generic) throws IOException {
    for (String key :
        List.of("data", "hash", "root-hash", AVB_KEY, "root-hash-signature", "trusted-cert")) {
      if (k.has(key)) {
        throw k.error(
            key,
            "given with "
                + DDI_KEY
                + " (expected: none; the image's GPT gives the data and hash partitions, its"
                + " signature partition or root-hash-file the root hash)");
      }
    }
    ExportOptions o = k.read(ExportOptions.KEYS, new ExportOptions(), Set.copyOf(IMAGE_KEYS));
    String image = k.location(DDI_KEY, "the DDI's path or URL", "DDI");
    Path certDir = k.path("cert-dir");
    if (certDir != null && !Files.isDirectory(certDir)) {
      throw k.error("cert-dir", certDir + ": no such directory");
    }
    DdiOpenOptions options = DdiOpenOptions.of(k.text("partition"), k.text("arch"), certDir);
    k.at(DdiOpenOptions.SYNTAX, "partition", options::designator);
    k.at(DdiOpenOptions.SYNTAX, "arch", options::arch);
    String given =
        k.has("root-hash-file")
            ? RootHashes.text(
                "serve", null, k.existing(k.path("root-hash-file"), "root-hash-file", "root hash"))
            : null;
    RemoteOptions remote = remote(k, image, image, null, generic, o.remote); // its files checked
    ServedPartition served;
    try { // a refusal names the line, keeping its kind (and so its exit code)
      served = DdiExports.resolve(image, options, given, RemoteArguments.over(generic, o.remote));
    } catch (InvalidSignatureException e) {
      throw new CliException(ExitCode.SIGNATURE_INVALID, k.at(DDI_KEY) + e.getMessage());
    } catch (DdiFormatException | GptFormatException e) {
      throw new DdiFormatException(k.at(DDI_KEY) + e.getMessage());
    } catch (CliException e) {
      throw new CliException(e.exitCode(), k.at(DDI_KEY) + e.getMessage());
    }
    if (served == null) {
      throw new DdiFormatException(
          k.at(DDI_KEY) + image + ": no GPT (expected: a disk image, a DDI)");
    }
    var mode = k.at(ExportOptions.KEYS, "ignore-corruption", () -> o.corruption.mode());
    boolean errorAsCorruption =
        k.at(ExportOptions.KEYS, "error-as-corruption", () -> o.corruption.errorAsCorruption());
    return DdiExports.config(
        k.section.name(),
        o.description,
        image,
        served,
        mode,
        errorAsCorruption,
        o.corruption.ignoreZeroBlocks,
        o.corruption.checkAtMostOnce,
        o.ioClass,
        remote);
  }

  /**
   * The export's remote options, its keys over [generic]'s; null when no location is remote (then
   * nothing of jverity-remote is loaded).
   */
  private static RemoteOptions remote(
      Keys k, String data, String hash, String fec, RemoteArguments generic, RemoteArguments own) {
    if (!Locations.anyRemote(data, hash, fec)) {
      return null;
    }
    RemoteArguments merged = RemoteArguments.over(generic, own);
    if (merged.caCert != null && own.caCert != null) {
      k.existing(merged.caCert, "ca-cert", "CA certificate");
    }
    return RemoteDevices.options(merged);
  }

  /** The keys of one section, read with their line numbers at hand for messages. */
  private record Keys(IniFile ini, IniFile.Section section, Path baseDir) {
    /** [generic]'s keys, read. */
    EndpointOptions options() {
      return read(EndpointOptions.KEYS, new EndpointOptions(), Set.of());
    }

    /**
     * The location {@code key} gives: a URL as it is, a path resolved against the config's
     * directory and checked to exist now ({@link #existing}).
     */
    String location(String key, String expected, String what) {
      if (!has(key)) {
        throw sectionError(key + ": missing (expected: " + expected + ")");
      }
      String v = text(key);
      if (!Location.isUrl(v)) {
        return existing(path(key), key, what).toString();
      }
      try {
        return Location.parse(v);
      } catch (BadValue bad) {
        throw new CliException(
            ExitCode.INVALID_PARAMETER,
            ini.at(section.entries().get(key).line())
                + key
                + ": "
                + v
                + " ("
                + bad.getMessage()
                + ")");
      }
    }

    /**
     * Stores each key of the section in {@code target} through {@code syntax}, as {@code open}'s
     * options would; {@code own} are keys the caller reads itself. An unknown key, or a value the
     * option's converter refuses, is refused naming file:line and the key.
     */
    <T> T read(Syntax<T> syntax, T target, Set<String> own) {
      for (IniFile.Entry e : section.entries().values()) {
        if (own.contains(e.key())) {
          continue;
        }
        boolean known;
        try {
          known = syntax.setKey(target, e.key(), e.value(), baseDir);
        } catch (BadValue bad) {
          throw new CliException(ExitCode.INVALID_PARAMETER, ini.at(e.line()) + bad.getMessage());
        }
        if (!known) {
          List<String> sorted =
              Stream.concat(own.stream(), syntax.keys().stream()).sorted().toList();
          throw new CliException(
              ExitCode.INVALID_PARAMETER,
              ini.at(e.line())
                  + e.key()
                  + ": unknown key in ["
                  + section.name()
                  + "] (expected: one of "
                  + String.join(", ", sorted)
                  + ")");
        }
      }
      return target;
    }

    boolean has(String key) {
      return section.entries().containsKey(key);
    }

    /** "FILE:LINE: [section] key: ", what a message about {@code key}'s value starts with. */
    String at(String key) {
      return ini.at(section.entries().get(key).line()) + "[" + section.name() + "] " + key + ": ";
    }

    String text(String key) {
      IniFile.Entry e = section.entries().get(key);
      return e == null ? null : e.value();
    }

    Path path(String key) {
      String v = text(key);
      if (v == null) {
        return null;
      }
      if (v.isEmpty()) {
        throw error(key, "\"\" (expected: a file name)");
      }
      try {
        return baseDir.resolve(Path.of(v));
      } catch (RuntimeException bad) {
        throw error(key, v + " (expected: a file name)");
      }
    }

    /**
     * {@code file}, which {@code key} names, checked to exist and be readable now: a missing file
     * found when the export opens would lose the file, line and key that named it.
     */
    Path existing(Path file, String key, String what) {
      try {
        Checks.requireFile(file, what);
      } catch (CliException e) {
        throw new CliException(
            e.exitCode(),
            ini.at(section.entries().get(key).line())
                + "["
                + section.name()
                + "] "
                + key
                + ": "
                + e.getMessage());
      }
      return file;
    }

    Path requiredPath(String key, String expected) {
      if (!has(key)) {
        throw sectionError(key + ": missing (expected: " + expected + ")");
      }
      return path(key);
    }

    /**
     * Runs a check of values of {@code syntax}'s options: prefixes file:line of {@code key} (of the
     * key its message names when null; of the section when not given) and names keys, not options.
     */
    <T> T at(Syntax<?> syntax, String key, Supplier<T> check) {
      try {
        return check.get();
      } catch (CliException | ServerException e) {
        String message = syntax.spelt(e.getMessage(), false);
        int colon = message.indexOf(": ");
        IniFile.Entry entry =
            section.entries().get(key != null ? key : colon < 0 ? "" : message.substring(0, colon));
        int line = entry == null ? section.line() : entry.line();
        throw new CliException(ExitCode.INVALID_PARAMETER, ini.at(line) + message);
      }
    }

    CliException error(String key, String message) {
      return new CliException(
          ExitCode.INVALID_PARAMETER,
          ini.at(section.entries().get(key).line()) + key + ": " + message);
    }

    CliException sectionError(String message) {
      return new CliException(
          ExitCode.INVALID_PARAMETER,
          ini.at(section.line()) + "[" + section.name() + "]: " + message);
    }
  }
}
