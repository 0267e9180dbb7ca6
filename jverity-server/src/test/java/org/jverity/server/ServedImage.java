package org.jverity.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.image.VerifiedImage;
import org.jverity.image.VerityImage;
import org.jverity.io.FileDevice;
import org.jverity.nbd.Export;
import org.jverity.nbd.NbdEvents;
import org.jverity.nbd.NbdServer;
import org.jverity.nbd.NbdTls;
import org.jverity.nbd.ServerLimits;
import org.jverity.tree.TreeBuilder;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.IoClass;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * A test fixture for what the daemon adds to the protocol (TLS, metrics): pseudo-random data and
 * its hash tree in a directory, opened through the core's opener and served on a free TCP port of
 * 127.0.0.1. jverity-nbd's tests have a fuller one (tampering, limits, Unix sockets), in a package
 * these tests cannot share. Closing stops the server and deletes nothing (the directory is the
 * test's).
 */
final class ServedImage implements AutoCloseable {
  final Path data;
  final Export export;
  final NbdServer server;
  final InetSocketAddress address;
  private final VerifiedImage image;

  private ServedImage(Path data, VerifiedImage image, NbdTls tls, NbdEvents events)
      throws IOException {
    this.data = data;
    this.image = image;
    this.export = new Export("", "test image", image.scheduler(), IoClass.BEST_EFFORT);
    this.server = new NbdServer(List.of(export), ServerLimits.DEFAULTS, tls, events);
    this.address = server.listen(new InetSocketAddress("127.0.0.1", 0));
  }

  /** {@code blocks} pseudo-random 4 KiB blocks (every 16th zero), formatted and served. */
  static ServedImage random(Path dir, int blocks) throws IOException {
    return random(dir, blocks, null, NbdEvents.NONE);
  }

  /**
   * As {@link #random(Path, int)}, served with {@code tls} (null: none), telling {@code events}.
   */
  static ServedImage random(Path dir, int blocks, NbdTls tls, NbdEvents events) throws IOException {
    byte[] bytes = new byte[blocks * 4096];
    SplittableRandom rnd = new SplittableRandom(blocks);
    for (int b = 0; b < blocks; b++) {
      if (b % 16 != 5) {
        for (int i = 0; i < 4096; i += 8) {
          long v = rnd.nextLong();
          for (int k = 0; k < 8; k++) {
            bytes[b * 4096 + i + k] = (byte) (v >>> (8 * k));
          }
        }
      }
    }
    Path data = Files.write(dir.resolve("data.img"), bytes);
    Path hash = dir.resolve("data.hash");
    VerityParams p =
        VerityParams.builder()
            .dataBlocks(blocks)
            .uuid(new UUID(0, blocks))
            .build(); // with a superblock
    byte[] root;
    try (FileDevice d = FileDevice.openChannel(data, false);
        FileDevice h = FileDevice.openChannel(hash, true)) {
      root = TreeBuilder.of(p).build(d, h);
    }
    try (VerityImage image = VerityImage.open(data.toString(), hash.toString(), Hex.format(root))) {
      return new ServedImage(
          data,
          image.reader(new HashBlockCache(16 << 20), ReaderOptions.DEFAULTS),
          tls,
          events); // the reader owns the devices
    }
  }

  String tcpUri() {
    return "nbd://127.0.0.1:" + address.getPort() + "/";
  }

  /** The {@code nbds://} URI, with libnbd's certificates directory for the client. */
  String tlsUri(Path clientCertificates) {
    return "nbds://127.0.0.1:" + address.getPort() + "/?tls-certificates=" + clientCertificates;
  }

  VerifiedReader reader() {
    return image.reader();
  }

  @Override
  public void close() throws IOException {
    server.shutdown(Duration.ofSeconds(10));
    image.close();
  }
}
