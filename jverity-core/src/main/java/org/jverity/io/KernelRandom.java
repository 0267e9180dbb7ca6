package org.jverity.io;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.SecureRandom;

/**
 * Random bytes from the kernel's generator ({@code /dev/urandom}), as veritysetup and avbtool take
 * their salts and UUIDs: the JDK's {@code SecureRandom} reads the same device, but its first use
 * sets up the security providers, ~15 ms of a one-shot {@code format}. Where there is no such
 * device, a {@code SecureRandom}.
 */
public final class KernelRandom {
  private KernelRandom() {}

  private static final String DEVICE = "/dev/urandom";

  /** {@code n} random bytes. */
  public static byte[] bytes(int n) {
    try (InputStream in = new FileInputStream(DEVICE)) {
      byte[] b = in.readNBytes(n);
      if (b.length == n) {
        return b;
      }
    } catch (IOException | SecurityException e) {
      // no such device here (or it cannot be read): the JDK's generator
    }
    byte[] b = new byte[n];
    new SecureRandom().nextBytes(b);
    return b;
  }
}
