package org.jverity.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * AOSP's public AVB test keys ({@code testkey_rsa2048.pem}, {@code testkey_rsa4096.pem}, {@code
 * testkey_rsa8192.pem}, PKCS#1 PEM as external/avb's test/data ships them), which the signed-image
 * vectors of issue 19 were made with. They live in this jar, not in one module's test resources, so
 * that every module's tests (jverity-avb, jverity-cli) use the same files; a test copies the one it
 * needs into its own directory, since tools take a path. Test data only: these keys are public.
 */
public final class AvbTestKeys {
  /** The keys this kit holds. */
  public static final List<String> NAMES =
      List.of("testkey_rsa2048.pem", "testkey_rsa4096.pem", "testkey_rsa8192.pem");

  private static final String DIRECTORY = "/avb-testkeys/";

  private AvbTestKeys() {}

  /** Writes the key {@code name} (one of {@link #NAMES}) into {@code dir} and returns its path. */
  public static Path copy(String name, Path dir) {
    if (!NAMES.contains(name)) {
      throw new IllegalArgumentException(
          "AVB test key: " + name + " (expected: one of " + NAMES + ")");
    }
    Path target = dir.resolve(name);
    // Class.getResourceAsStream reads this jar whether it is on the class path or the module path
    // (a directory with a hyphen is no package, so the module system does not encapsulate it).
    try (InputStream in = AvbTestKeys.class.getResourceAsStream(DIRECTORY + name)) {
      if (in == null) {
        throw new IllegalStateException(
            "AVB test key " + name + " is missing from jverity-testkit");
      }
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("AVB test key " + name + " -> " + target, e);
    }
  }

  /**
   * The key {@code name} as a file in a directory of this JVM's own (made on first use, deleted at
   * exit), for a test that only needs to read it.
   */
  public static synchronized Path path(String name) {
    try {
      if (scratch == null) {
        scratch = Files.createTempDirectory("avb-testkeys");
        scratch.toFile().deleteOnExit();
      }
      Path p = scratch.resolve(name);
      if (!Files.exists(p)) {
        copy(name, scratch).toFile().deleteOnExit();
      }
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException("AVB test keys directory", e);
    }
  }

  private static Path scratch;
}
