package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.jverity.format.VerityParams;
import org.jverity.io.MemoryDevice;
import org.jverity.tree.TreeBuilder;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.HashingPool;
import org.jverity.verify.IoClass;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerificationScheduler;
import org.jverity.verify.VerifiedReader;

/**
 * The empty export name means the first export when none is named "" (nbdfuse --command asks for
 * it).
 */
class DefaultExportTest {

  static VerificationScheduler image(byte[] data) throws Exception {
    VerityParams p =
        VerityParams.builder()
            .dataBlocks(data.length / 4096)
            .salt(new byte[0])
            .superblock(false)
            .build();
    MemoryDevice hash = new MemoryDevice("hash");
    byte[] root = TreeBuilder.of(p).withThreads(1).build(new MemoryDevice("data", data), hash);
    VerifiedReader r =
        VerifiedReader.open(
            p,
            new MemoryDevice("data", data),
            hash,
            root,
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS);
    return new VerificationScheduler(r, HashingPool.shared());
  }

  @Test
  void theEmptyNameReachesTheFirstExport() throws Exception {
    byte[] first = new byte[64 * 4096];
    byte[] second = new byte[32 * 4096];
    new SplittableRandom(1).nextBytes(first);
    new SplittableRandom(2).nextBytes(second);
    NbdServer server =
        new NbdServer(
            List.of(
                new Export("first", "", image(first), IoClass.BEST_EFFORT),
                new Export("second", "", image(second), IoClass.BEST_EFFORT)),
            ServerLimits.DEFAULTS,
            null,
            NbdEvents.NONE);
    try {
      InetSocketAddress at = server.listen(new InetSocketAddress("127.0.0.1", 0));
      try (RawNbdClient c = RawNbdClient.connect(at, false)) { // GO ""
        assertThat(c.read(4096, 8192)).isEqualTo(Arrays.copyOfRange(first, 4096, 4096 + 8192));
      }
    } finally {
      server.shutdown(Duration.ofSeconds(5));
    }
  }
}
