package org.jverity.cli.verity;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.image.DeviceSource;

/**
 * {@code --avb-key KEY}: DATA is an Android Verified Boot partition image, whose vbmeta (found
 * through the footer) is checked against KEY and then gives what HASH, ROOT_HASH, the tree options
 * and the FEC options give otherwise ({@link AvbImage}). {@code verify}, {@code read} and {@code
 * open} take it as an option, {@code serve}'s config as the key {@code avb-key} of an export.
 */
public final class AvbOptions {
  /** The value that accepts an image whose vbmeta is not signed, instead of a key file. */
  public static final String UNSIGNED = "none";

  /** The key file, or {@link #UNSIGNED}; null when not given. */
  public String key;

  public static final Syntax<AvbOptions> SYNTAX =
      Syntax.<AvbOptions>group()
          .option(
              "--avb-key",
              "KEY",
              "DATA is an AVB partition image: its vbmeta signature is checked against KEY (PEM"
                  + " public or private key, or the AVB public-key blob; none accepts an unsigned"
                  + " image, saying so) before anything is read, and its hashtree descriptor gives"
                  + " the tree, the root hash and the FEC (give no HASH, ROOT_HASH, tree or FEC"
                  + " options); DATA's first image_size bytes are the data.",
              (a, v) -> a.key = v.equals(UNSIGNED) ? v : FileName.parse(v).toString());

  /**
   * The options of what a vbmeta gives instead: given with {@code --avb-key}, each is a conflict
   * (the root-hash signature too: the vbmeta's signature is what the root hash is trusted by).
   */
  private static final List<Syntax.Option<?>> GIVEN_BY_VBMETA =
      Stream.of(VerityOptions.CHECK, FecOptions.SYNTAX, RootHashSignatureOptions.SYNTAX)
          .<Syntax.Option<?>>flatMap(s -> s.options().stream())
          .toList();

  public boolean given() {
    return key != null;
  }

  /** The key file; null when not given or {@link #UNSIGNED}. */
  public Path keyFile() {
    return key == null || key.equals(UNSIGNED) ? null : Path.of(key);
  }

  /**
   * Refuses, with {@code --avb-key}, what the image's vbmeta gives instead: the HASH and ROOT_HASH
   * parameters (each null when not given) and each option in {@code options} (the command line's,
   * by their longest names) that says where the tree is or what it is, exit 2, one line naming them
   * all.
   */
  public void refuseConflicts(Set<String> options, String hash, String rootHash) {
    if (!given()) {
      return;
    }
    List<String> conflicts = new ArrayList<>();
    if (hash != null) {
      conflicts.add("HASH");
    }
    if (rootHash != null) {
      conflicts.add("ROOT_HASH");
    }
    Stream.concat(Stream.of("--root-hash-file"), GIVEN_BY_VBMETA.stream().map(Syntax.Option::name))
        .filter(options::contains)
        .forEach(conflicts::add);
    if (!conflicts.isEmpty()) {
      throw new CliException(
          ExitCode.USAGE,
          "--avb-key takes the hash tree, root hash and FEC from the image's vbmeta: give no "
              + String.join(", ", conflicts));
    }
  }

  /** The config keys {@code avb-key} conflicts with, as {@link #refuseConflicts} does options. */
  public static List<String> conflictingKeys() {
    List<String> keys = new ArrayList<>(List.of("hash", "root-hash", "root-hash-file"));
    GIVEN_BY_VBMETA.forEach(o -> keys.add(o.key()));
    return keys;
  }

  /**
   * DATA's vbmeta checked against the key and resolved ({@link AvbImage#resolve}); an unsigned one
   * accepted by {@code none} is said on {@code err}.
   */
  public AvbImage resolve(DeviceSource source, String data, PrintWriter err) throws IOException {
    AvbImage image = AvbImage.resolve(source, data, key);
    String notice = image.unsignedNotice("--avb-key " + UNSIGNED);
    if (notice != null) {
      err.println("jverity: " + notice);
      err.flush();
    }
    return image;
  }
}
