package org.jverity.server.process;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGHUP rereads the config, as nbd-server and most daemons do, instead of stopping the JVM (its
 * default for SIGHUP). {@code sun.misc.Signal} (module jdk.unsupported) is the JDK's only way to
 * catch a signal. The handler starts the reload on a thread of its own and returns: a reload opens
 * images and drains connections, and signals that come meanwhile wait for it (one reload at a time,
 * the server's lock). Closing puts the previous handler back.
 *
 * <p>A SIGHUP ignored when the JVM started ({@code nohup}, {@code trap '' HUP}, a supervisor that
 * ignores it) stays ignored: HotSpot's {@code JVM_RegisterSignal} leaves an ignored shutdown signal
 * (HUP, INT, TERM) as it is and answers SIG_IGN, so no handler is installed and the process never
 * sees the signal. {@link #ignored()} tells it, so the server can say so and point to {@code
 * jverity reload}, which reaches it through the status socket instead.
 */
final class SighupReload implements AutoCloseable {
  private static final Signal HUP = new Signal("HUP");

  private final SignalHandler previous;

  private SighupReload(SignalHandler previous) {
    this.previous = previous;
  }

  static SighupReload install(Runnable reload) {
    return new SighupReload(
        Signal.handle(HUP, s -> Thread.ofPlatform().name("jverity-reload").start(reload)));
  }

  /** Whether SIGHUP was ignored at start: the handler is then not installed, and never runs. */
  boolean ignored() {
    return previous == SignalHandler.SIG_IGN;
  }

  @Override
  public void close() {
    Signal.handle(HUP, previous);
  }
}
