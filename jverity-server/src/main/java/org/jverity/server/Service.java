package org.jverity.server;

import java.nio.file.Path;
import org.jverity.server.process.CaptiveRun;
import org.jverity.server.process.ParentWatch;
import org.jverity.server.process.PidFile;

/**
 * How the server runs as a service, as nbdkit spells it: a pid file written once it listens ({@link
 * PidFile}), a captive command run against it ({@link CaptiveRun}), and stopping when the parent
 * process goes ({@link ParentWatch}). Immutable.
 *
 * @param pidFile where to write the process id; null for none
 * @param run the captive command ({@code sh -c}); null for none
 * @param exitWithParent whether to stop when the parent process exits
 */
public record Service(Path pidFile, String run, boolean exitWithParent) {
  /** None of them: a server that runs until it is stopped. */
  public static final Service NONE = new Service(null, null, false);
}
