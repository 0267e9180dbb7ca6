package org.jverity.server;

import java.util.Locale;
import org.jverity.nbd.NbdTls;

/** nbdkit's {@code --tls}: off, on (offered) or require (no export without it). */
public enum TlsMode {
  OFF,
  ON,
  REQUIRE;

  /** The values, as a message lists them. */
  public static final String EXPECTED = "off, on or require";

  /** {@code text} in any case; null is {@link #OFF}; an unknown mode is null. */
  public static TlsMode parse(String text) {
    if (text == null) {
      return OFF;
    }
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "off" -> OFF;
      case "on" -> ON;
      case "require" -> REQUIRE;
      default -> null;
    };
  }

  /** The protocol's mode, or null for {@link #OFF}. */
  NbdTls.Mode nbd() {
    return switch (this) {
      case OFF -> null;
      case ON -> NbdTls.Mode.ON;
      case REQUIRE -> NbdTls.Mode.REQUIRE;
    };
  }

  /** As the option takes it, and as nbdkit's {@code $tls} is told about it. */
  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
