package org.jverity.server.status;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import jdk.net.ExtendedSocketOptions;
import org.jverity.server.ServerException;

/**
 * Who is at the other end of a status socket, from the kernel (SO_PEERCRED: the uid of the process
 * that bound or connected it, which it cannot forge). {@code status} and {@code close} believe only
 * a server running as their own user, and a server takes {@code close} only from its own user, so
 * another local user can neither answer for an export nor stop it. Stateless.
 */
final class PeerCheck {
  private PeerCheck() {}

  /** The user of the process at the other end of {@code c}. */
  static UserPrincipal peer(SocketChannel c) throws IOException {
    return c.getOption(ExtendedSocketOptions.SO_PEERCRED).user();
  }

  /** Whether the other end of {@code c} runs as this process's user. */
  static boolean sameUser(SocketChannel c) {
    try {
      return peer(c).equals(CurrentUser.principal());
    } catch (IOException | UnsupportedOperationException e) {
      return false; // who it is cannot be told: not trusted
    }
  }

  /**
   * Refuses ({@link ServerException.Reason#IO}, access denied) a server at {@code socket} of
   * another user.
   */
  static void requireSameUser(SocketChannel c, Path socket) {
    UserPrincipal peer;
    try {
      peer = peer(c);
    } catch (IOException | UnsupportedOperationException e) {
      throw new ServerException(
          ServerException.Reason.IO,
          "status socket "
              + socket
              + ": cannot tell which user serves it ("
              + e.getMessage()
              + ")");
    }
    if (!peer.equals(CurrentUser.principal())) {
      throw new ServerException(
          ServerException.Reason.IO,
          "status socket "
              + socket
              + ": served by user "
              + peer.getName()
              + ", not "
              + CurrentUser.principal().getName()
              + " (expected: a server running as you; not trusted)");
    }
  }
}
