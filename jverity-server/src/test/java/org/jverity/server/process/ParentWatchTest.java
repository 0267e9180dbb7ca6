package org.jverity.server.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.jverity.server.ServerLog;

class ParentWatchTest {
  @Test
  void aParentAlreadyGoneWhenTheWatchStartsStopsTheServerAtOnce() throws Exception {
    // The parent recorded when the server began, gone (this process has another parent) by the
    // time the watch starts: the CI race where the parent exited right after the pid file appeared.
    StringWriter text = new StringWriter();
    ServerLog log = new ServerLog(new PrintWriter(text, true));
    CountDownLatch stopped = new CountDownLatch(1);
    long gone = ParentWatch.parentPid() + 1_000_000;
    try (ParentWatch w = ParentWatch.start(gone, log, stopped::countDown)) {
      assertThat(stopped.await(10, TimeUnit.SECONDS)).isTrue();
    }
    log.flush();
    assertThat(text.toString())
        .contains("parent process " + gone + " exited: stopping the server (--exit-with-parent)");
  }

  @Test
  void aLiveParentDoesNotStopTheServer() throws Exception {
    StringWriter text = new StringWriter();
    ServerLog log = new ServerLog(new PrintWriter(text, true));
    CountDownLatch stopped = new CountDownLatch(1);
    try (ParentWatch w = ParentWatch.start(ParentWatch.parentPid(), log, stopped::countDown)) {
      assertThat(stopped.await(3 * ParentWatch.PERIOD.toMillis(), TimeUnit.MILLISECONDS)).isFalse();
    }
    assertThat(text.toString()).isEmpty();
  }
}
