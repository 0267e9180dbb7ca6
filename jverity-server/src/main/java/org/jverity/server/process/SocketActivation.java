package org.jverity.server.process;

import java.io.IOException;
import java.nio.channels.Channel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import org.jverity.server.ServerException;

/**
 * The listening socket systemd (or libnbd's {@code nbd_connect_systemd_socket_activation}, which
 * {@code nbdinfo -- [ CMD ]} and {@code nbdcopy -- [ CMD ] -} use) passes: descriptor 3, announced
 * by {@code LISTEN_FDS=1} and {@code LISTEN_PID} = this process, as {@code sd_listen_fds(3)} reads
 * them and nbdkit does. {@code LISTEN_PID} naming another process means the variables were
 * inherited by mistake: they are ignored. {@code LISTEN_FDNAMES} is not read: one socket serves
 * every export, as with nbdkit.
 *
 * <p>Java has no public way to adopt descriptor 3, only {@link System#inheritedChannel()} for
 * descriptor 0 (it dups the descriptor and builds a TCP or Unix-domain channel of the right kind).
 * So for that one call the socket is put at 0 ({@code dup2(3, 0)}), and the real stdin put back
 * right after; descriptor 3 is then closed. The channel the JDK made replaces {@code /dev/null}
 * over stdin, stdout and stderr when it closes (it assumes inetd's stdio); {@link #close} keeps
 * them. Children never see the variables: {@code --run} is refused with them, and no other child
 * reads them (their {@code LISTEN_PID} is not theirs).
 */
public final class SocketActivation {
  /** The first descriptor passed ({@code SD_LISTEN_FDS_START}). */
  static final int FIRST_FD = 3;

  private final ServerSocketChannel channel;

  private SocketActivation(ServerSocketChannel channel) {
    this.channel = channel;
  }

  /**
   * Whether the environment passes this process a socket: {@code LISTEN_PID} is its pid and {@code
   * LISTEN_FDS} is set. A {@code LISTEN_PID} of another process is not (the variables leaked).
   */
  public static boolean requested(Map<String, String> env, long pid) {
    String forPid = env.get("LISTEN_PID");
    if (forPid == null || env.get("LISTEN_FDS") == null) {
      return false;
    }
    try {
      return Long.parseLong(forPid.strip()) == pid;
    } catch (NumberFormatException e) {
      throw new ServerException(
          ServerException.Reason.INVALID_VALUE,
          "LISTEN_PID: '" + forPid + "' (expected: the pid socket activation is for)");
    }
  }

  /** Whether this process was started with a socket to listen on ({@link #requested}). */
  public static boolean requested() {
    return requested(System.getenv(), ProcessHandle.current().pid());
  }

  /**
   * Takes the socket passed at descriptor 3; call once, when {@link #requested()}. Refuses anything
   * but one listening stream socket (TCP or Unix-domain).
   */
  public static SocketActivation take() {
    String fds = System.getenv("LISTEN_FDS");
    if (!"1".equals(fds == null ? null : fds.strip())) {
      throw new ServerException(
          ServerException.Reason.INVALID_VALUE,
          "LISTEN_FDS: '" + fds + "' (expected: 1, one listening socket for every export)");
    }
    FileDescriptors d = FileDescriptors.get();
    Channel c;
    try {
      int stdin = d.dup(0);
      d.dup2(FIRST_FD, 0);
      try {
        c = System.inheritedChannel();
      } finally {
        d.dup2(stdin, 0);
        d.close(stdin);
      }
    } catch (IOException e) {
      throw new ServerException(
          ServerException.Reason.IO, "socket activation: fd 3: " + e.getMessage());
    }
    if (!(c instanceof ServerSocketChannel listening)) {
      String what =
          c instanceof SocketChannel
              ? "a connected socket (expected: a listening one: Accept=no in the .socket unit)"
              : c == null
                  ? "not a stream socket (expected: a listening socket: ListenStream=)"
                  : "a datagram socket (expected: a listening stream socket: ListenStream=)";
      quietlyClose(c);
      throw new ServerException(
          ServerException.Reason.INVALID_VALUE, "socket activation: fd 3 is " + what);
    }
    try {
      d.close(FIRST_FD); // the channel holds its own copy
    } catch (IOException e) {
      quietlyClose(listening);
      throw new ServerException(
          ServerException.Reason.IO, "socket activation: fd 3: " + e.getMessage());
    }
    return new SocketActivation(listening);
  }

  /** The listening socket; close it with {@link #close}, not directly. */
  public ServerSocketChannel channel() {
    return channel;
  }

  /**
   * Closes the socket and keeps stdin, stdout and stderr, which the JDK's inherited channel would
   * replace with {@code /dev/null} (the log goes on after the listener closes).
   */
  public void close() throws IOException {
    closeKeepingStdio(channel);
  }

  private static void closeKeepingStdio(Channel c) throws IOException {
    FileDescriptors d = FileDescriptors.get();
    int[] saved = {d.dup(0), d.dup(1), d.dup(2)};
    try {
      c.close();
    } finally {
      for (int fd = 0; fd < saved.length; fd++) {
        d.dup2(saved[fd], fd);
        d.close(saved[fd]);
      }
    }
  }

  private static void quietlyClose(Channel c) {
    if (c != null) {
      try {
        closeKeepingStdio(c);
      } catch (IOException e) {
        // refused anyway
      }
    }
  }
}
