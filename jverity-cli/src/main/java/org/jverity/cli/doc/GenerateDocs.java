package org.jverity.cli.doc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;

/**
 * Writes the manual pages and the shell completions into a directory, for bin/release: {@code
 * man/man8/*.8}, {@code man/man5/*.5}, {@code completions/bash/jverity}, {@code
 * completions/zsh/_jverity}. The same bytes for the same sources: the pages' date is
 * SOURCE_DATE_EPOCH's (reproducible builds), else a fixed one, never the clock's.
 */
public final class GenerateDocs {
  private GenerateDocs() {}

  /** Without SOURCE_DATE_EPOCH. */
  static final String FIXED_DATE = "2026-01-01";

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: GenerateDocs OUTDIR");
      System.exit(2);
    }
    write(Path.of(args[0]), date(System.getenv("SOURCE_DATE_EPOCH")));
  }

  static String date(String epoch) {
    if (epoch == null || !epoch.matches("[0-9]{1,12}")) {
      return FIXED_DATE;
    }
    return DateTimeFormatter.ISO_LOCAL_DATE.format(
        Instant.ofEpochSecond(Long.parseLong(epoch)).atZone(ZoneOffset.UTC));
  }

  static void write(Path out, String date) throws IOException {
    for (Map.Entry<String, String> page : ManPages.all(date).entrySet()) {
      put(out.resolve("man").resolve(page.getKey()), page.getValue());
    }
    put(out.resolve("completions/bash/jverity"), Completions.bashScript());
    put(out.resolve("completions/zsh/_jverity"), Completions.zsh());
  }

  private static void put(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }
}
