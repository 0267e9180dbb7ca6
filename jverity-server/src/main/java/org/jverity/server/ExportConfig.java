package org.jverity.server;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.image.FecSource;
import org.jverity.image.Locations;
import org.jverity.image.RootCheck;
import org.jverity.remote.RemoteOptions;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.IoClass;

/**
 * One image to serve, as {@code open}'s arguments or a section of {@code serve}'s config file
 * describe it, before any file is opened: values only, so an embedder builds one as the command
 * line does. Immutable.
 *
 * @param name the export name clients ask for ("" is the default export)
 * @param description shown by {@code nbdinfo}; may be empty
 * @param data the data image: a path, or a URL ({@link Locations})
 * @param hash the hash device: a path, or a URL
 * @param root the trusted root: given as text with the tree's parameters, or known already
 * @param signature the root hash's signature, the certificates trusted to make it and their check;
 *     null for none
 * @param mode what a corrupted block does
 * @param errorAsCorruption an I/O error of the data or hash device counts as corruption (dm-verity
 *     {@code restart_on_error} / {@code panic_on_error}; only with a mode that fails closed)
 * @param ignoreZeroBlocks dm-verity's {@code ignore_zero_blocks}
 * @param checkAtMostOnce dm-verity's {@code check_at_most_once}
 * @param ioClass the I/O class of the export's reads
 * @param fec where the Reed-Solomon parity is; null for none
 * @param remote how its remote devices are reached and cached; null when every location is local
 *     (then nothing of jverity-remote is loaded)
 * @param avbKey the key an AVB partition image's vbmeta was checked against when the front end
 *     resolved it into the values above (its hashtree descriptor's root and FEC); null for none
 */
public record ExportConfig(
    String name,
    String description,
    String data,
    String hash,
    ExportRoot root,
    Signature signature,
    CorruptionMode mode,
    boolean errorAsCorruption,
    boolean ignoreZeroBlocks,
    boolean checkAtMostOnce,
    IoClass ioClass,
    FecSource fec,
    RemoteOptions remote,
    Path avbKey) {

  /**
   * A root-hash signature: its files (inputs a pid file must never overwrite) and the check that
   * reads them, run before the export serves a byte.
   */
  public record Signature(Path signature, List<Path> trusted, RootCheck check) {
    public Signature {
      trusted = List.copyOf(trusted);
    }
  }

  /** The check of the root hash before serving: the signature's, or {@link RootCheck#NONE}. */
  public RootCheck rootCheck() {
    return signature == null ? RootCheck.NONE : signature.check();
  }

  /** Whether any of its devices is at a URL. */
  public boolean anyRemote() {
    return Locations.anyRemote(data, hash, fec == null ? null : fec.device());
  }

  /**
   * The export's input files, each with what it is ("export 'x''s data image"), in a stable order:
   * its local ones (a URL is no file a pid file could overwrite).
   */
  Map<Path, String> inputFiles() {
    String export = "export " + ServerLog.display(name) + "'s ";
    Map<Path, String> all = new LinkedHashMap<>();
    putFile(all, data, export + "data image");
    putFile(all, hash, export + "hash device");
    if (fec != null) {
      putFile(all, fec.device(), export + "FEC device");
    }
    if (avbKey != null) {
      all.putIfAbsent(avbKey, export + "AVB key");
    }
    if (signature != null) {
      all.putIfAbsent(signature.signature(), export + "root hash signature");
      signature.trusted().forEach(c -> all.putIfAbsent(c, export + "trusted certificate"));
    }
    return all;
  }

  private static void putFile(Map<Path, String> all, String location, String what) {
    Path file = Locations.file(location);
    if (file != null) {
      all.putIfAbsent(file, what);
    }
  }
}
