package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.jverity.avb.AvbAlgorithm;
import org.jverity.avb.AvbFooter;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.VbmetaImage;
import org.jverity.io.FileDevice;
import org.jverity.testkit.AvbTestKeys;

/**
 * An AVB partition image made by {@code jverity avb add_hashtree_footer} (avbtool's layout, AVB.md
 * 4.2): the data, its sha256 tree at {@code image_size}, the FEC after it, the vbmeta (signed with
 * an AOSP test key, or unsigned) and the footer; the layout read back from the image's descriptor.
 *
 * @param file the partition image
 * @param imageSize the data's size: the descriptor's image_size
 * @param fecOffset where the parity starts; 0 without FEC
 */
record AvbTestImage(Path file, long imageSize, long fecOffset) {
  static final String KEY = "testkey_rsa2048.pem";
  static final String OTHER_KEY = "testkey_rsa4096.pem";

  /** Signed with {@link #KEY}, FEC with 2 roots. */
  static AvbTestImage signed(Path file) throws IOException {
    return build(file, AvbAlgorithm.SHA256_RSA2048, KEY, 2, 0);
  }

  /**
   * Makes {@code file}, which holds the data (a multiple of 4096 bytes), an AVB partition image.
   *
   * @param key one of {@link AvbTestKeys#NAMES}; null with {@link AvbAlgorithm#NONE}
   * @param roots FEC roots; 0 for none
   * @param flags the vbmeta header's flags
   */
  static AvbTestImage build(Path file, AvbAlgorithm algorithm, String key, int roots, int flags)
      throws IOException {
    List<String> args =
        new ArrayList<>(
            List.of(
                "avb",
                "add_hashtree_footer",
                "--image",
                file.toString(),
                "--partition_name",
                "system",
                "--hash_algorithm",
                "sha256",
                "--salt",
                "5a".repeat(32),
                "--algorithm",
                algorithm.toString(),
                "--flags",
                String.valueOf(flags)));
    if (key != null) {
      args.addAll(List.of("--key", AvbTestKeys.path(key).toString()));
    }
    if (roots > 0) {
      args.addAll(List.of("--fec_num_roots", String.valueOf(roots)));
    } else {
      args.add("--do_not_generate_fec");
    }
    ToolRun r = Jverity.run(args);
    assertThat(r.exitCode()).as("%s: %s", args, r).isZero();
    try (FileDevice image = FileDevice.openRead(file)) {
      HashtreeDescriptor d =
          VbmetaImage.read(image, AvbFooter.read(image).orElseThrow()).descriptors().stream()
              .filter(HashtreeDescriptor.class::isInstance)
              .map(HashtreeDescriptor.class::cast)
              .findFirst()
              .orElseThrow();
      return new AvbTestImage(file, d.imageSize(), d.fecOffset());
    }
  }

  /** {@code blocks} blocks of seeded pseudo-random data at {@code file}. */
  static Path data(Path file, int blocks, long seed) throws IOException {
    byte[] b = new byte[blocks * 4096];
    new SplittableRandom(seed).nextBytes(b);
    return Files.write(file, b);
  }

  /** Flips every bit of the byte at {@code offset}. */
  static void flip(Path file, long offset) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      ch.read(one, offset);
      one.put(0, (byte) ~one.get(0));
      ch.write(one.rewind(), offset);
    }
  }
}
