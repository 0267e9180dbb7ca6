package org.jverity.server;

import org.jverity.server.process.JvmProcess;

/**
 * What a running {@link Server} hooks into its process: the front end's, so that the daemon also
 * runs in a test's JVM, where nothing may catch the JVM's signals or halt it. The command line
 * installs {@link JvmProcess} (SIGINT and SIGTERM stop the server and end the JVM with the run's
 * exit code; SIGHUP reloads); {@link #NONE} hooks nothing, and the server is stopped, withdrawn and
 * reloaded through its own calls.
 */
public interface ProcessHooks {
  /** Hooks nothing. */
  ProcessHooks NONE = server -> Installed.NOTHING;

  /**
   * Called once the server listens (its URIs known, before they are printed); what it returns is
   * undone as the run ends.
   */
  Installed install(Server server);

  /** The hooks of one run, undone in two steps, as the server ends. */
  interface Installed {
    Installed NOTHING =
        new Installed() {
          @Override
          public void stopReloads() {}

          @Override
          public void remove() {}
        };

    /** First, before anything is closed: no reload may start while the server closes. */
    void stopReloads();

    /** Last, once everything is closed: a signal during the close still ends the run cleanly. */
    void remove();
  }
}
