package org.jverity.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.jverity.image.VerityImage;
import org.jverity.nbd.Export;
import org.jverity.nbd.NbdEvents;
import org.jverity.nbd.NbdServer;
import org.jverity.nbd.ServerLimits;
import org.jverity.verify.VerificationScheduler;

/**
 * Serves one verified image over NBD on 127.0.0.1 until killed, for bench/nbd.sh until {@code
 * jverity open} exists. Arguments: IMAGE HASH ROOT_HEX PORT; the parameters come from the
 * superblock at offset 0 of HASH (as {@code veritysetup format} writes it). With {@code
 * -Dwarmup=SECONDS}, first serves that long to an in-process client on another port (4 KiB random
 * and 512 KiB sequential reads over structured replies, as fio's libnbd does), so the JIT has
 * compiled the serving path before the real port opens.
 */
final class NbdBenchServer {
  private NbdBenchServer() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: NbdBenchServer IMAGE HASH ROOT_HEX PORT");
      System.exit(2);
    }
    // as jverity open opens it: the shared cache and hashing pool, the defaults; served until
    // killed
    VerificationScheduler scheduler =
        VerityImage.open(args[0], args[1], args[2]).reader().scheduler();
    double warmup = Double.parseDouble(System.getProperty("warmup", "0"));
    if (warmup > 0) {
      warmUp(scheduler, warmup);
    }
    NbdServer server =
        new NbdServer(
            List.of(Export.of("", scheduler)), ServerLimits.DEFAULTS, null, NbdEvents.NONE);
    InetSocketAddress at =
        server.listen(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[3])));
    System.out.println("nbd://127.0.0.1:" + at.getPort() + "/");
    System.out.flush();
    server.awaitShutdown(); // until killed
  }

  private static void warmUp(VerificationScheduler scheduler, double seconds) throws Exception {
    try (NbdServer w =
        new NbdServer(
            List.of(Export.of("", scheduler)), ServerLimits.DEFAULTS, null, NbdEvents.NONE)) {
      InetSocketAddress at = w.listen(new InetSocketAddress("127.0.0.1", 0));
      long until = System.nanoTime() + (long) (seconds * 1e9);
      List<Thread> clients = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        int length = i % 2 == 0 ? 4096 : 512 << 10;
        clients.add(
            Thread.ofPlatform().start(() -> warmUpClient(at, scheduler.size(), length, until)));
      }
      for (Thread t : clients) {
        t.join();
      }
    }
  }

  /**
   * A structured-reply client reading {@code length} bytes at random aligned offsets until {@code
   * until}.
   */
  private static void warmUpClient(InetSocketAddress at, long size, int length, long until) {
    try (Socket s = new Socket(at.getAddress(), at.getPort())) {
      s.setTcpNoDelay(true);
      DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
      DataOutputStream out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
      in.skipNBytes(18); // greeting
      out.writeInt(3); // FIXED_NEWSTYLE | NO_ZEROES
      option(out, in, 8, new byte[0]); // STRUCTURED_REPLY
      option(out, in, 7, new byte[6]); // GO "" with no info requests
      SplittableRandom rnd = new SplittableRandom(length);
      byte[] data = new byte[length + 8];
      for (long cookie = 0; System.nanoTime() < until; cookie++) {
        long offset = rnd.nextLong(size / length) * length;
        out.writeInt(0x25609513);
        out.writeShort(0);
        out.writeShort(0); // READ
        out.writeLong(cookie);
        out.writeLong(offset);
        out.writeInt(length);
        out.flush();
        for (boolean done = false; !done; ) {
          in.skipNBytes(4);
          done = (in.readUnsignedShort() & 1) != 0;
          in.skipNBytes(10);
          in.readFully(data, 0, in.readInt());
        }
      }
    } catch (IOException e) {
      System.err.println("warm-up client: " + e);
    }
  }

  /** Sends an option and reads its replies up to the final ACK (or error). */
  private static void option(DataOutputStream out, DataInputStream in, int option, byte[] data)
      throws IOException {
    out.writeLong(0x49484156454F5054L);
    out.writeInt(option);
    out.writeInt(data.length);
    out.write(data);
    out.flush();
    while (true) {
      in.skipNBytes(12);
      int type = in.readInt();
      in.skipNBytes(in.readInt());
      if (type == 1 || type < 0) {
        return;
      }
    }
  }
}
