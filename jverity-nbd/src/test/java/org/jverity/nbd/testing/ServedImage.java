package org.jverity.nbd.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.jverity.format.VerityParams;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.io.FileDevice;
import org.jverity.nbd.Export;
import org.jverity.nbd.NbdEvents;
import org.jverity.nbd.NbdServer;
import org.jverity.nbd.NbdTls;
import org.jverity.nbd.ServerLimits;
import org.jverity.tree.TreeBuilder;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.HashingPool;
import org.jverity.verify.IoClass;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerificationScheduler;
import org.jverity.verify.VerifiedReader;

/**
 * A test fixture: an image and its hash tree in a directory, served by an {@link NbdServer} on a
 * free TCP port of 127.0.0.1 and on a Unix socket, with TLS and events when asked, the data
 * tampered with after formatting when asked. jverity-nbd's tests and the daemon's (TLS, metrics)
 * share it through this module's test jar. Closing stops the server and deletes nothing (the
 * directory is the test's).
 */
public final class ServedImage implements AutoCloseable {
  public final Path dir;
  public final Path data;
  public final Path hash;
  public final byte[] root;
  public final VerityParams params;
  public final NbdServer server;
  public final InetSocketAddress address;
  public final Path socket;
  public final Export export;
  private final BlockDevice dataDevice;
  private final BlockDevice hashDevice;
  private final VerifiedReader reader;
  private final VerificationScheduler scheduler;

  private ServedImage(
      Path dir,
      Path data,
      Path hash,
      byte[] root,
      VerityParams params,
      ReaderOptions options,
      ServerLimits limits,
      NbdTls tls,
      NbdEvents events)
      throws IOException {
    this.dir = dir;
    this.data = data;
    this.hash = hash;
    this.root = root;
    this.params = params;
    this.dataDevice = BlockDevices.openRead(data);
    this.hashDevice = BlockDevices.openRead(hash);
    this.reader =
        VerifiedReader.open(
            params, dataDevice, hashDevice, root, new HashBlockCache(16 << 20), options);
    this.scheduler = new VerificationScheduler(reader, HashingPool.shared());
    this.export = new Export("", "test image", scheduler, IoClass.BEST_EFFORT);
    this.server = new NbdServer(List.of(export), limits, tls, events);
    this.address = server.listen(new InetSocketAddress("127.0.0.1", 0));
    this.socket = dir.resolve("nbd.sock");
    server.listenUnix(socket);
  }

  /**
   * Changes the data file after its hash tree is built and before it is served: corruption on disk
   * that the tree does not know about.
   */
  public interface Tamper {
    Tamper NONE = data -> {};

    void apply(Path data) throws IOException;
  }

  /** {@code blocks} pseudo-random 4 KiB blocks (every 16th zero), formatted and served. */
  public static ServedImage random(Path dir, int blocks, ReaderOptions options) throws IOException {
    return random(dir, blocks, options, NbdEvents.NONE);
  }

  /** As {@link #random(Path, int, ReaderOptions)}, telling {@code events} what the server sees. */
  public static ServedImage random(Path dir, int blocks, ReaderOptions options, NbdEvents events)
      throws IOException {
    return random(dir, blocks, options, null, events, Tamper.NONE);
  }

  /**
   * As {@link #random(Path, int, ReaderOptions, NbdEvents)}, with {@code tamper} run after
   * formatting.
   */
  public static ServedImage random(
      Path dir, int blocks, ReaderOptions options, NbdEvents events, Tamper tamper)
      throws IOException {
    return random(dir, blocks, options, null, events, tamper);
  }

  /**
   * As {@link #random(Path, int, ReaderOptions, NbdEvents)}, served with {@code tls} (null: none).
   */
  public static ServedImage random(
      Path dir, int blocks, ReaderOptions options, NbdTls tls, NbdEvents events)
      throws IOException {
    return random(dir, blocks, options, tls, events, Tamper.NONE);
  }

  public static ServedImage random(
      Path dir, int blocks, ReaderOptions options, NbdTls tls, NbdEvents events, Tamper tamper)
      throws IOException {
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
    return format(dir, data, options, ServerLimits.DEFAULTS, tls, events, tamper);
  }

  public static ServedImage format(
      Path dir, Path data, ReaderOptions options, ServerLimits limits, NbdEvents events)
      throws IOException {
    return format(dir, data, options, limits, events, Tamper.NONE);
  }

  public static ServedImage format(
      Path dir,
      Path data,
      ReaderOptions options,
      ServerLimits limits,
      NbdEvents events,
      Tamper tamper)
      throws IOException {
    return format(dir, data, options, limits, null, events, tamper);
  }

  /**
   * Builds the tree over {@code data} as it is, lets {@code tamper} change the data, then serves it
   * with {@code tls} (null: none).
   */
  public static ServedImage format(
      Path dir,
      Path data,
      ReaderOptions options,
      ServerLimits limits,
      NbdTls tls,
      NbdEvents events,
      Tamper tamper)
      throws IOException {
    byte[] salt = new byte[32];
    java.util.Arrays.fill(salt, (byte) 0x5a);
    VerityParams p =
        VerityParams.builder()
            .dataBlocks(Files.size(data) / 4096)
            .salt(salt)
            .superblock(false)
            .build();
    Path hash = dir.resolve("data.hash");
    byte[] root;
    try (FileDevice d = FileDevice.openChannel(data, false);
        FileDevice h = FileDevice.openChannel(hash, true)) {
      root = TreeBuilder.of(p).build(d, h);
    }
    tamper.apply(data);
    return new ServedImage(dir, data, hash, root, p, options, limits, tls, events);
  }

  public String tcpUri() {
    return "nbd://127.0.0.1:" + address.getPort() + "/";
  }

  /**
   * The {@code nbds://} URI of the TCP listener, with libnbd's certificates directory for the
   * client.
   */
  public String tlsUri(Path clientCertificates) {
    return "nbds://127.0.0.1:" + address.getPort() + "/?tls-certificates=" + clientCertificates;
  }

  public String unixUri() {
    return "nbd+unix:///?socket=" + socket;
  }

  public VerifiedReader reader() {
    return reader;
  }

  @Override
  public void close() throws IOException {
    server.shutdown(Duration.ofSeconds(10));
    scheduler.close();
    reader.close();
    dataDevice.close();
    hashDevice.close();
  }
}
