package org.jverity.nbd;

import java.nio.file.Files;
import java.nio.file.Path;
import org.jverity.nbd.testing.ServedImage;
import org.jverity.verify.ReaderOptions;

/** Serves a random image until killed: for trying clients by hand. */
final class SmokeMain {
  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("nbd-smoke");
    try (ServedImage im =
        ServedImage.random(
            dir, Integer.parseInt(args[0]), ReaderOptions.DEFAULTS.withIgnoreZeroBlocks(true))) {
      System.out.println(im.tcpUri());
      System.out.println(im.unixUri());
      System.out.println(im.data);
      System.out.flush();
      Thread.sleep(Long.parseLong(args[1]) * 1000);
    }
  }
}
