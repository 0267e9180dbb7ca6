package org.jverity.server;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGHUP rereads the config, as nbd-server and most daemons do, instead of stopping the JVM (its
 * default for SIGHUP). {@code sun.misc.Signal} (module jdk.unsupported) is the JDK's only way to
 * catch a signal. The handler starts the reload on a thread of its own and returns: a reload opens
 * images and drains connections, and signals that come meanwhile wait for it (one reload at a time,
 * the server's lock). Closing puts the previous handler back.
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

  @Override
  public void close() {
    Signal.handle(HUP, previous);
  }
}
