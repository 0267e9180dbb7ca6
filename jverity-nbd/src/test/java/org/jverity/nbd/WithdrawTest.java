package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.jverity.verify.IoClass;

/**
 * {@link NbdServer#withdraw}: one export stops being served (jverity close) while the others go on;
 * its clients are disconnected, new ones no longer find it, and the last one shuts the server.
 */
class WithdrawTest {
  @Test
  void aWithdrawnExportDisconnectsItsClientsAndTheOthersGoOn() throws Exception {
    byte[] first = new byte[16 * 4096];
    byte[] second = new byte[8 * 4096];
    new SplittableRandom(3).nextBytes(first);
    new SplittableRandom(4).nextBytes(second);
    NbdServer server =
        new NbdServer(
            List.of(
                new Export("first", "", DefaultExportTest.image(first), IoClass.BEST_EFFORT),
                new Export("second", "", DefaultExportTest.image(second), IoClass.BEST_EFFORT)),
            ServerLimits.DEFAULTS,
            null,
            NbdEvents.NONE);
    try {
      InetSocketAddress at = server.listen(new InetSocketAddress("127.0.0.1", 0));
      try (RawNbdClient onFirst = RawNbdClient.connect(at, false)) { // "": the first export
        assertThat(onFirst.read(0, 4096)).isEqualTo(Arrays.copyOf(first, 4096));
        assertThat(server.withdraw("nothing", Duration.ofSeconds(5))).isFalse();
        assertThat(server.withdraw("first", Duration.ofSeconds(5))).isTrue();
        assertThat(onFirst.closedByServer(Duration.ofSeconds(5)))
            .as("its client disconnected")
            .isTrue();
      }
      assertThat(server.connections()).isZero();
      try (RawNbdClient c = RawNbdClient.connect(at, false)) { // "" is now the only export left
        assertThat(c.read(4096, 4096)).isEqualTo(Arrays.copyOfRange(second, 4096, 8192));
      }
      assertThat(server.withdraw("second", Duration.ofSeconds(5))).isTrue();
      assertThat(server.isShuttingDown()).as("the last one shuts the server down").isTrue();
      assertThatThrownBy(() -> RawNbdClient.connect(at, false).close())
          .isInstanceOf(IOException.class);
    } finally {
      server.shutdown(Duration.ofSeconds(5));
    }
  }
}
