package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.jverity.avb.AvbFormatException;
import org.jverity.avb.AvbPublicKey;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.verify.AvbPartition;
import org.jverity.avb.verify.AvbTrust;
import org.jverity.avb.verify.KeyOption;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.image.DeviceSource;
import org.jverity.io.BlockDevice;

/**
 * {@code --avb-key KEY}: DATA is an Android Verified Boot partition image, whose vbmeta (found
 * through the footer) is checked against KEY and then gives what HASH, ROOT_HASH, the tree options
 * and the FEC options give otherwise ({@link ImageRoot.Avb}). {@code verify}, {@code read} and
 * {@code open} take it as an option, {@code serve}'s config as the key {@code avb-key} of an
 * export.
 */
public final class AvbOptions {
  /** The value that accepts an image whose vbmeta is not signed, instead of a key file. */
  public static final String UNSIGNED = "none";

  /** How a refusal of the library's names the key: this option, or {@link #UNSIGNED}. */
  private static final KeyOption KEY_OPTION = new KeyOption("--avb-key", UNSIGNED);

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
   * Reads {@code location}'s footer and vbmeta through {@code source} and checks them against
   * {@code key} (a key file, or {@link #UNSIGNED}), before anything else of the image is read. A
   * refusal is {@link AvbPartition#open}'s one line: a signature that does not verify, a key that
   * is not the one given, an unsigned vbmeta without {@code none}, verification or the hashtree
   * disabled by the flags ({@link AvbVerificationException}, exit 18); no footer, no hashtree
   * descriptor, bytes that are no vbmeta ({@link AvbFormatException}, exit 17).
   */
  public static AvbPartition partition(DeviceSource source, String location, String key)
      throws IOException {
    AvbTrust trust;
    if (key.equals(UNSIGNED)) {
      trust = AvbTrust.unsigned();
    } else {
      Path file = Path.of(key);
      Checks.requireFile(file, "AVB key");
      byte[] blob = AvbPublicKey.readBlob(file);
      if (blob.length == 0) {
        throw new IOException("--avb-key " + key + ": empty (expected: a public key, or none)");
      }
      trust = AvbTrust.key(blob);
    }
    try (BlockDevice image = source.open(location)) {
      return AvbPartition.open(image, location, trust, KEY_OPTION);
    }
  }

  /**
   * The line saying that {@code partition}'s vbmeta (of the image at {@code location}) is not
   * signed and was accepted by {@code how} (the option or key that said none); null when it is
   * signed.
   */
  public static String unsignedNotice(AvbPartition partition, String location, String how) {
    return partition.signed() ? null : location + ": vbmeta is not signed (accepted: " + how + ")";
  }
}
