package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.jverity.verify.IoClass;

/**
 * {@link NbdServer#replaceExports}: a reloaded config's exports replace the current ones; a client
 * of an export kept (the same {@link Export}) reads on, one of an export replaced or removed is
 * disconnected.
 */
class ReplaceExportsTest {
  private static byte[] bytes(int blocks, long seed) {
    byte[] b = new byte[blocks * 4096];
    new SplittableRandom(seed).nextBytes(b);
    return b;
  }

  // RawNbdClient asks for "", which is the first export: each replacement below puts first the
  // one the next client should reach, which also shows a reordering alone drains nobody.
  @Test
  void keptExportsReadOnWhileReplacedAndRemovedOnesAreDisconnected() throws Exception {
    byte[] one = bytes(8, 1);
    byte[] two = bytes(8, 2);
    byte[] gone = bytes(8, 3);
    byte[] three = bytes(8, 4);
    Export kept = new Export("one", "", DefaultExportTest.image(one), IoClass.BEST_EFFORT);
    Export replaced = new Export("two", "", DefaultExportTest.image(two), IoClass.BEST_EFFORT);
    Export removed = new Export("gone", "", DefaultExportTest.image(gone), IoClass.BEST_EFFORT);
    NbdServer server =
        new NbdServer(
            List.of(removed, kept, replaced), ServerLimits.DEFAULTS, null, NbdEvents.NONE);
    Duration grace = Duration.ofSeconds(5);
    try {
      InetSocketAddress at = server.listen(new InetSocketAddress("127.0.0.1", 0));
      try (RawNbdClient onRemoved = RawNbdClient.connect(at, false)) {
        server.replaceExports(List.of(replaced, removed, kept), grace);
        try (RawNbdClient onReplaced = RawNbdClient.connect(at, false)) {
          server.replaceExports(List.of(kept, replaced, removed), grace);
          try (RawNbdClient onKept = RawNbdClient.connect(at, false)) {
            assertThat(onRemoved.read(0, 4096)).isEqualTo(Arrays.copyOf(gone, 4096));
            assertThat(onReplaced.read(0, 4096)).isEqualTo(Arrays.copyOf(two, 4096));
            assertThat(onKept.read(0, 4096)).isEqualTo(Arrays.copyOf(one, 4096));

            Export newTwo =
                new Export("two", "", DefaultExportTest.image(three), IoClass.BEST_EFFORT);
            server.replaceExports(List.of(newTwo, kept), grace);
            assertThat(onReplaced.closedByServer(grace)).as("replaced: disconnected").isTrue();
            assertThat(onRemoved.closedByServer(grace)).as("removed: disconnected").isTrue();
            assertThat(onKept.read(4096, 4096))
                .as("kept: reads on")
                .isEqualTo(Arrays.copyOfRange(one, 4096, 8192));
            try (RawNbdClient again = RawNbdClient.connect(at, false)) {
              assertThat(again.read(0, 4096))
                  .as("the new two")
                  .isEqualTo(Arrays.copyOf(three, 4096));
            }
          }
        }
      }
    } finally {
      server.shutdown(grace);
    }
  }
}
