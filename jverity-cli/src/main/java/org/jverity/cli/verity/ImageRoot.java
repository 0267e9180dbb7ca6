package org.jverity.cli.verity;

import java.io.IOException;
import java.io.PrintWriter;
import java.security.GeneralSecurityException;
import org.jverity.avb.verify.AvbPartition;
import org.jverity.image.DeviceSource;
import org.jverity.image.FecSource;
import org.jverity.image.RootCheck;
import org.jverity.image.VerityImage;

/**
 * What a checking command opens, as its arguments give it: DATA, HASH, and where the trusted root
 * comes from. Either ROOT_HASH (or an identity) with the tree options, resolved against the hash
 * device when it is opened and checked by the root hash's signature if one is given ({@link
 * Given}), or an AVB partition image's vbmeta, checked against {@code --avb-key} before anything
 * else of the image is read, whose hashtree descriptor gives the tree, the root and the FEC ({@link
 * Avb}). {@link ImageArguments#root} chooses; the commands open either the same way.
 */
sealed interface ImageRoot {
  /** The data image: a path, or a URL. */
  String data();

  /** The hash device: a path, or a URL; an AVB image is its own. */
  String hash();

  /**
   * Opens the devices through {@code source} and checks the root before any block is read; a notice
   * (an unsigned vbmeta accepted) goes to {@code err}.
   */
  Opened open(DeviceSource source, PrintWriter err) throws IOException, GeneralSecurityException;

  /**
   * The image opened, with the parity that goes with it.
   *
   * @param image the devices and the trusted root, owned until its reader takes them
   * @param fec the FEC given, or the AVB image's own; null for none
   */
  record Opened(VerityImage image, FecSource fec) implements AutoCloseable {
    @Override
    public void close() {
      image.close();
    }
  }

  /**
   * DATA HASH ROOT_HASH and the options, checked as given.
   *
   * @param rootText the root hash in hex or an identity, as given (not yet parsed)
   * @param check the root hash signature's check, or {@link RootCheck#NONE}
   * @param fec the FEC options' parity; null without {@code --fec-device}
   */
  record Given(
      String data,
      String hash,
      VerityOptions options,
      String rootText,
      RootCheck check,
      FecSource fec)
      implements ImageRoot {
    @Override
    public Opened open(DeviceSource source, PrintWriter err)
        throws IOException, GeneralSecurityException {
      return new Opened(Trust.open(source, data, hash, options, rootText, check), fec);
    }
  }

  /**
   * An AVB partition image: data, tree and parity in one file, trusted through its vbmeta.
   *
   * @param key the key file, or {@link AvbOptions#UNSIGNED}
   */
  record Avb(String data, String key) implements ImageRoot {
    @Override
    public String hash() {
      return data;
    }

    @Override
    public Opened open(DeviceSource source, PrintWriter err)
        throws IOException, GeneralSecurityException {
      AvbPartition partition = AvbOptions.partition(source, data, key);
      String notice =
          AvbOptions.unsignedNotice(partition, data, "--avb-key " + AvbOptions.UNSIGNED);
      if (notice != null) {
        err.println("jverity: " + notice);
        err.flush();
      }
      // the root is the vbmeta's, checked already: no further check
      return new Opened(
          VerityImage.open(source, data, data, partition.trustedRoot(), RootCheck.NONE),
          partition.fec(data));
    }
  }
}
