package org.jverity.nbd;

import java.util.List;
import org.jverity.verify.CorruptBlockException;

/**
 * What a server tells its owner: for logging and metrics. Called on connection and request threads;
 * implementations must be thread-safe and quick, and must not throw (a throw is caught and
 * ignored). Every method has a no-op default.
 */
public interface NbdEvents {
  NbdEvents NONE = new NbdEvents() {};

  /**
   * Tells every one of {@code listeners}, in order (e.g. a log and {@link NbdMetrics}); one that
   * throws does not keep the others from hearing.
   */
  static NbdEvents all(NbdEvents... listeners) {
    List<NbdEvents> each = List.of(listeners);
    return new NbdEvents() {
      @Override
      public void connected(String peer) {
        each.forEach(l -> NbdServer.quietly(() -> l.connected(peer)));
      }

      @Override
      public void disconnected(String peer, String reason) {
        each.forEach(l -> NbdServer.quietly(() -> l.disconnected(peer, reason)));
      }

      @Override
      public void protocolError(String peer, String message) {
        each.forEach(l -> NbdServer.quietly(() -> l.protocolError(peer, message)));
      }

      @Override
      public void request(String export, String command, long bytes, String error, long nanos) {
        for (NbdEvents l : each) { // the hot path: no lambda per listener
          try {
            l.request(export, command, bytes, error, nanos);
          } catch (RuntimeException e) {
            NbdServer.quietly(
                () -> {
                  throw e;
                });
          }
        }
      }

      @Override
      public void corruption(String export, CorruptBlockException e) {
        each.forEach(l -> NbdServer.quietly(() -> l.corruption(export, e)));
      }
    };
  }

  /** A client connected. */
  default void connected(String peer) {}

  /**
   * A connection ended; {@code reason} says why in a few words ("client closed", a protocol error).
   */
  default void disconnected(String peer, String reason) {}

  /** A connection was refused or closed for breaking the protocol or a limit. */
  default void protocolError(String peer, String message) {}

  /**
   * A request was answered.
   *
   * @param command the command's name in lower case ("read", "cache", ...), or "unknown"
   * @param bytes payload bytes sent (reads) or drained (writes)
   * @param error the error sent, or null for success
   * @param nanos from reading the request to sending its last reply byte
   */
  default void request(String export, String command, long bytes, String error, long nanos) {}

  /** A block did not verify while serving {@code export}. */
  default void corruption(String export, CorruptBlockException e) {}
}
