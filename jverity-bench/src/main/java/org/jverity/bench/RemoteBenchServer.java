package org.jverity.bench;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import org.jverity.image.ParamOverrides;
import org.jverity.image.RootCheck;
import org.jverity.image.VerityImage;
import org.jverity.nbd.Export;
import org.jverity.nbd.NbdEvents;
import org.jverity.nbd.NbdServer;
import org.jverity.nbd.ServerLimits;
import org.jverity.remote.RemoteOptions;
import org.jverity.remote.RemoteSource;
import org.jverity.remote.RemoteStats;

/**
 * Serves one verified image whose data and hash devices are URLs over NBD on 127.0.0.1 until
 * killed, as export {@code bench}, for bench/remote.sh until {@code jverity open} takes URLs.
 * Arguments: DATA_URL HASH_URL ROOT_HEX PORT [CACHE_DIR CACHE_MAX_BYTES] (no CACHE_DIR: the cache
 * in memory, {@link RemoteOptions#DEFAULTS}' bound). Opens as {@code jverity open} would: {@link
 * RemoteSource} with the defaults, the shared hash block cache, the default limits. At SIGTERM,
 * prints the origin counters on stderr (one line), so the script can set them beside nginx's log.
 */
final class RemoteBenchServer {
  private RemoteBenchServer() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4 && args.length != 6) {
      System.err.println(
          "usage: RemoteBenchServer DATA_URL HASH_URL ROOT_HEX PORT [CACHE_DIR CACHE_MAX_BYTES]");
      System.exit(2);
    }
    RemoteOptions options = RemoteOptions.DEFAULTS;
    if (args.length == 6) {
      options = options.withCache(Path.of(args[4]), Long.parseLong(args[5]));
    }
    RemoteSource source = new RemoteSource(options);
    RemoteStats stats = source.stats();
    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> report(stats)));
    VerityImage image =
        VerityImage.open(
            source, args[0], args[1], ParamOverrides.NONE, args[2], null, RootCheck.NONE);
    NbdServer server =
        new NbdServer(
            List.of(Export.of("bench", image.reader().scheduler())),
            ServerLimits.DEFAULTS,
            null,
            NbdEvents.NONE);
    InetSocketAddress at =
        server.listen(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[3])));
    System.out.println("nbd://127.0.0.1:" + at.getPort() + "/bench");
    System.out.flush();
    server.awaitShutdown(); // until killed
  }

  private static void report(RemoteStats s) {
    System.err.printf(
        "remote stats: requests %d, bytes %d, retries %d, failures %d, cache hits %d, misses %d,"
            + " evictions %d, rereads %d, origin latency %.3f s in all%n",
        s.requests.sum(),
        s.bytes.sum(),
        s.retries.sum(),
        s.failures.sum(),
        s.cacheHits.sum(),
        s.cacheMisses.sum(),
        s.cacheEvictions.sum(),
        s.rereads.sum(),
        s.latencySeconds());
  }
}
