package org.jverity.server;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;
import org.jverity.nbd.NbdServer;
import org.jverity.nbd.NbdUri;
import org.jverity.server.process.SocketActivation;

/**
 * Where a {@link Server} takes its connections, as {@link Endpoint} says: a TCP address, a Unix
 * socket, the socket systemd passed ({@link SocketActivation}), or one connection on stdin and
 * stdout as {@code nbdkit -s}. Each mistake in where is one {@link ServerException} naming the
 * option.
 */
final class Listener {
  private final Endpoint listening;
  private final boolean activated;
  private final ServerLog log;

  Listener(Endpoint listening, boolean activated, ServerLog log) {
    this.listening = listening;
    this.activated = activated;
    this.log = log;
  }

  /** Whether the one connection is stdin and stdout (no listening socket, no URI). */
  boolean stdin() {
    return listening.stdin();
  }

  /** Before anything opens: a --socket in a directory that does not exist is a mistake. */
  void checkSocketDirectory() {
    Path socket = listening.socket();
    if (socket != null) {
      Path dir = socket.toAbsolutePath().getParent();
      if (dir == null || !Files.isDirectory(dir)) {
        throw new ServerException(
            ServerException.Reason.INVALID_VALUE,
            "--socket: " + socket + " (expected: a path in an existing directory)");
      }
    }
  }

  /** Listens where the options say; the URI of an export by its name. */
  Function<String, String> listen(NbdServer server) throws IOException {
    if (listening.stdin()) {
      return name -> null; // the client started this process: it needs no URI
    }
    if (activated) {
      SocketActivation a = SocketActivation.take();
      server.listen(a.channel(), a::close);
      SocketAddress at = a.channel().getLocalAddress();
      log.line("listening on the socket passed by socket activation (fd 3): " + at);
      boolean tls = listening.tls().on();
      return name ->
          at instanceof UnixDomainSocketAddress u
              ? NbdUri.unix(u.getPath(), name)
              : NbdUri.tcp((InetSocketAddress) at, name, tls);
    }
    if (listening.socket() != null) {
      try {
        server.listenUnix(listening.socket());
      } catch (IOException e) {
        throw new ServerException(
            ServerException.Reason.IO,
            "--socket " + listening.socket() + ": cannot listen: " + e.getMessage());
      }
      return name -> NbdUri.unix(listening.socket(), name);
    }
    InetSocketAddress address = new InetSocketAddress(listening.bind(), listening.port());
    if (address.isUnresolved()) {
      throw new ServerException(
          ServerException.Reason.INVALID_VALUE,
          "--bind: "
              + listening.bind()
              + " (expected: an IP address or a host name that resolves)");
    }
    InetSocketAddress bound;
    try {
      bound = server.listen(address);
    } catch (BindException e) {
      throw new ServerException(
          ServerException.Reason.IO,
          "--bind "
              + listening.bind()
              + " --port "
              + listening.port()
              + ": cannot listen: "
              + e.getMessage());
    }
    boolean tls = listening.tls().on();
    return name -> NbdUri.tcp(bound, name, tls);
  }

  /** One connection on stdin/stdout, as {@code nbdkit -s}: stdout carries the protocol only. */
  void serveStdin(NbdServer server) {
    PrintStream protocol = System.out;
    System.setOut(System.err); // a stray print must not corrupt the protocol stream
    try {
      server.serve(
          new FileInputStream(FileDescriptor.in), new FileOutputStream(FileDescriptor.out));
    } finally {
      System.setOut(protocol);
    }
  }
}
