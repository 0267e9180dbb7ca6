package org.jverity.server.status;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import org.jverity.server.ServerException;

/**
 * The user this process runs as, to compare with the owner of a runtime directory and with the peer
 * of a status socket ({@link PeerCheck}). Principals compare by uid. Stateless.
 */
final class CurrentUser {
  private CurrentUser() {}

  private static volatile UserPrincipal principal;

  /** This process's user. */
  static UserPrincipal principal() {
    UserPrincipal p = principal;
    if (p == null) {
      principal = p = lookUp();
    }
    return p;
  }

  private static UserPrincipal lookUp() {
    try {
      // Linux: /proc/self (followed: the link itself is root's) belongs to the process's uid, even
      // one without a passwd entry.
      return Files.getOwner(Path.of("/proc/self"));
    } catch (IOException | UnsupportedOperationException e) {
      try {
        return FileSystems.getDefault()
            .getUserPrincipalLookupService()
            .lookupPrincipalByName(System.getProperty("user.name"));
      } catch (IOException | UnsupportedOperationException e2) {
        throw new ServerException(
            ServerException.Reason.IO,
            "cannot tell which user this process runs as: " + e2.getMessage());
      }
    }
  }
}
