package org.jverity.bench;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.nbd.Export;
import org.jverity.nbd.NbdEvents;
import org.jverity.nbd.NbdServer;
import org.jverity.nbd.ServerLimits;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.HashingPool;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerificationScheduler;
import org.jverity.verify.VerifiedReader;

/**
 * Serves one verified image over NBD on 127.0.0.1 until killed, for bench/nbd.sh until
 * {@code jverity open} exists. Arguments: IMAGE HASH ROOT_HEX PORT; the parameters come from the
 * superblock at offset 0 of HASH (as {@code veritysetup format} writes it).
 */
final class NbdBenchServer {
  private NbdBenchServer() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: NbdBenchServer IMAGE HASH ROOT_HEX PORT");
      System.exit(2);
    }
    BlockDevice data = BlockDevices.openRead(Path.of(args[0]));
    BlockDevice hash = BlockDevices.openRead(Path.of(args[1]));
    byte[] sb = new byte[VeritySuperblock.SIZE];
    hash.readFully(0, sb, 0, sb.length);
    VerityParams params = VeritySuperblock.decode(args[1], sb).toParams(0);
    VerifiedReader reader = VerifiedReader.open(params, data, hash, Hex.parse("root hash", args[2]),
        HashBlockCache.shared(), ReaderOptions.DEFAULTS);
    VerificationScheduler scheduler = new VerificationScheduler(reader, HashingPool.shared());
    NbdServer server = new NbdServer(List.of(Export.of("", scheduler)), ServerLimits.DEFAULTS, null, NbdEvents.NONE);
    InetSocketAddress at = server.listen(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[3])));
    System.out.println("nbd://127.0.0.1:" + at.getPort() + "/");
    System.out.flush();
    server.awaitShutdown(); // until killed
  }
}
