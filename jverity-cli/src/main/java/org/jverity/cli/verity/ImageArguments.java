package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.BiConsumer;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Location;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.UsageException;
import org.jverity.image.Locations;

/**
 * DATA HASH [ROOT_HASH] and --root-hash-file: what every command that checks an image is given.
 * DATA and HASH are locations: a file, or a URL ({@link Location}) for the commands that read. HASH
 * is left out only for an AVB partition image ({@link AvbOptions}), whose vbmeta says where its
 * tree is: {@link #OR_AVB} takes it as optional, {@link #check} requires it.
 */
final class ImageArguments {
  String data;
  String hash;
  String rootHash;
  Path rootHashFile;

  /** DATA HASH [ROOT_HASH]: for the commands that take no AVB image ({@code repair}). */
  static final Syntax<ImageArguments> SYNTAX = syntax(false);

  /**
   * DATA [HASH] [ROOT_HASH]: HASH left out with {@code --avb-key} ({@code verify}, {@code read}).
   */
  static final Syntax<ImageArguments> OR_AVB = syntax(true);

  private static Syntax<ImageArguments> syntax(boolean orAvb) {
    Syntax<ImageArguments> s =
        Syntax.<ImageArguments>group()
            .parameter(
                "DATA",
                "Data image: a file, or a URL (http://, https://, s3://BUCKET/KEY).",
                (a, v) -> a.data = Location.parse(v));
    String hashHelp = "Hash device (may be DATA with --hash-offset): a file or a URL";
    BiConsumer<ImageArguments, String> setHash = (a, v) -> a.hash = Location.parse(v);
    s =
        orAvb
            ? s.optionalParameter("HASH", hashHelp + " (none with --avb-key).", setHash)
            : s.parameter("HASH", hashHelp + ".", setHash);
    return s.optionalParameter(
            "ROOT_HASH",
            "Root hash in hex, or the image identity (verity1:...) that format prints"
                + " (or use --root-hash-file).",
            (a, v) -> a.rootHash = v)
        .option(
            "--root-hash-file",
            "FILE",
            "Read the root hash (hex) or identity from FILE.",
            (a, v) -> a.rootHashFile = FileName.parse(v));
  }

  /**
   * Checks that the local files exist (a URL is the origin's to answer for) and returns the root
   * hash text (not yet parsed).
   */
  String check(String command) throws IOException {
    requireHash();
    requireLocal(data, "data");
    requireLocal(hash, "hash");
    return RootHashes.text(command, rootHash, rootHashFile);
  }

  private static void requireLocal(String location, String what) {
    Path file = Locations.file(location);
    if (file != null) {
      Checks.requireFile(file, what);
    }
  }

  /** DATA as a file, for a command that writes it: a URL cannot be written. */
  Path dataFile(String command) {
    return writable(command, data, "DATA");
  }

  /** HASH as a file, for a command that writes it. */
  Path hashFile(String command) {
    return writable(command, hash, "HASH");
  }

  /** HASH, which only an AVB image goes without: missing, as the parser says it of the others. */
  private void requireHash() {
    if (hash == null) {
      throw new UsageException("missing required parameter 'HASH'");
    }
  }

  /**
   * What {@code command} opens, every argument checked before any file is read: with {@code
   * --avb-key}, the AVB partition image DATA, whose vbmeta gives what HASH, ROOT_HASH and the
   * options in {@code given} would (each refused, {@link AvbOptions#refuseConflicts}); else DATA
   * HASH ROOT_HASH with the tree, signature and FEC options. The one place a command's arguments
   * say which.
   *
   * @param given the options on the command line, by their longest names
   */
  ImageRoot root(
      String command,
      VerityOptions options,
      FecOptions fec,
      RootHashSignatureOptions signature,
      AvbOptions avb,
      Set<String> given)
      throws IOException {
    if (avb.given()) {
      avb.refuseConflicts(given, hash, rootHash);
      requireLocal(data, "data");
      Path key = avb.keyFile();
      if (key != null) {
        Checks.requireFile(key, "AVB key");
      }
      return new ImageRoot.Avb(data, avb.key);
    }
    signature.checkGiven();
    String rootText = check(command);
    fec.check();
    return new ImageRoot.Given(data, hash, options, rootText, signature.rootCheck(), fec.source());
  }

  /** A location {@code command} writes to: a URL is refused ({@link #localFile}). */
  private static Path writable(String command, String location, String label) {
    return localFile(command + " " + label, location);
  }

  /**
   * {@code location} as a file, for a command that writes it or its neighbours: a URL is never an
   * output (remote devices are read only), exit 3.
   */
  static Path localFile(String what, String location) {
    if (Locations.isRemote(location)) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER,
          what + ": " + Locations.withoutQuery(location) + " (expected: a local file)");
    }
    return Path.of(location);
  }
}
