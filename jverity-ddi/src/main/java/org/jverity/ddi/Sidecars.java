package org.jverity.ddi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The root hash files systemd-dissect reads next to an image: {@code NAME.roothash} and {@code
 * NAME.usrhash} (hex), where NAME is the image's file name without {@code .raw}. A file named after
 * the whole file name ({@code NAME.raw.roothash}), which systemd does not read, is reported as
 * ignored rather than silently passed over. Immutable.
 *
 * @param root the root partition's root hash, lower-case hex; null when there is no sidecar
 * @param usr the usr partition's; null when there is none
 * @param warnings what was found and ignored, one line each
 */
public record Sidecars(String root, String usr, List<String> warnings) {
  public static final Sidecars NONE = new Sidecars(null, null, List.of());

  /** A sidecar larger than this is no root hash (systemd reads a line of hex). */
  private static final long MAX_BYTES = 4096;

  public Sidecars {
    warnings = List.copyOf(warnings);
  }

  /** The sidecars of {@code image}. */
  public static Sidecars of(Path image) throws IOException {
    String name = image.getFileName().toString();
    String base = name.endsWith(".raw") ? name.substring(0, name.length() - 4) : name;
    List<String> warnings = new ArrayList<>();
    String root = read(image.resolveSibling(base + ".roothash"));
    String usr = read(image.resolveSibling(base + ".usrhash"));
    if (!base.equals(name)) {
      for (String suffix : List.of(".roothash", ".usrhash", ".roothash.p7s", ".usrhash.p7s")) {
        Path wrong = image.resolveSibling(name + suffix);
        if (Files.exists(wrong)) {
          warnings.add(
              wrong + ": ignored (systemd-dissect reads " + base + suffix + ", without .raw)");
        }
      }
    }
    return new Sidecars(root, usr, warnings);
  }

  private static String read(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      return null;
    }
    if (Files.size(file) > MAX_BYTES) {
      throw new DdiFormatException(
          file + ": " + Files.size(file) + " bytes (expected: a root hash" + " in hex)");
    }
    String text = Files.readString(file, StandardCharsets.US_ASCII).strip();
    if (text.isEmpty() || text.length() % 2 != 0 || !text.chars().allMatch(HexFormat::isHexDigit)) {
      throw new DdiFormatException(
          file + ": not a root hash (expected: hex digits, an even" + " number)");
    }
    return text.toLowerCase(Locale.ROOT);
  }
}
