package org.jverity.cli.syntax;

import java.nio.file.Path;

/**
 * A file a command writes, named on the command line: a {@link FileName}, and never a URL (remote
 * devices are read only; {@code -o s3://b/k} would otherwise write a local file {@code s3:/b/k}).
 * Stateless.
 */
public final class OutputFile {
  private OutputFile() {}

  public static Path parse(String value) {
    if (Location.isUrl(value)) {
      throw new BadValue("a local file (a URL is read only)");
    }
    return FileName.parse(value);
  }
}
