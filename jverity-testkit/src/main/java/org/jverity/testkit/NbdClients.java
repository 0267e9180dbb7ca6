package org.jverity.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What the NBD tests ask of the real clients beyond one run of a {@link Tool} ({@code nbdinfo},
 * {@code nbdsh}, {@code nbdfuse}, {@code qemu-img}): the digest of an export as {@code nbdcopy}
 * streams it, to compare with the image's.
 */
public final class NbdClients {
  private static final Tool NBDCOPY = Tool.of("nbdcopy");

  private NbdClients() {}

  /**
   * {@code nbdcopy URI -}: the SHA-256 of what the client read, hex, digested as it streams (an
   * image need not fit in memory); fails if the copy fails.
   */
  public static String sha256OfCopy(String uri) {
    Process p = NBDCOPY.start(uri, "-");
    CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> text(p.getErrorStream()));
    try {
      String digest = sha256(p.getInputStream());
      assertThat(p.waitFor(Tool.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
          .as("nbdcopy %s finished", uri)
          .isTrue();
      assertThat(p.exitValue()).as("nbdcopy %s: %s", uri, err.join()).isZero();
      return digest;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted copying " + uri, e);
    }
  }

  /** The SHA-256 of {@code file}, hex: what {@link #sha256OfCopy} of its export must be. */
  public static String sha256(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return sha256(in);
    }
  }

  /** The SHA-256 of {@code in} to its end, hex. */
  public static String sha256(InputStream in) throws IOException {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        d.update(buf, 0, n);
      }
      return HexFormat.of().formatHex(d.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  private static String text(InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}
