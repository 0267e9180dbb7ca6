package org.jverity.server;

import java.io.IOException;
import java.util.List;

/** Where {@code serve}'s config is read again on SIGHUP ({@link Server#withReload}). */
public interface ConfigReload {
  /**
   * Reads the config anew. A mistake is an exception whose message is one line naming it ({@code
   * FILE:LINE: key: ...}): the reload is then refused whole.
   */
  Config read() throws IOException;

  /**
   * A config as read: where and how the server listens (which a reload cannot change) and the
   * exports.
   */
  record Config(Endpoint listening, List<ExportConfig> exports) {
    public Config {
      exports = List.copyOf(exports);
    }
  }
}
