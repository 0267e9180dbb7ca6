package org.jverity.avb.hashtree;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jverity.format.Hex;
import org.jverity.testkit.ToolResult;
import org.jverity.testkit.Veritysetup;

/**
 * veritysetup's single-device layout of an AVB geometry: {@code --no-superblock --data-blocks N
 * --hash-offset T --fec-device IMG --fec-offset F}, the commands the tests compare with.
 */
record VeritysetupLayout(AvbTreeGeometry geometry, byte[] salt) {

  private List<String> common(String action, Path image) {
    AvbTreeGeometry g = geometry;
    List<String> a = new ArrayList<>();
    a.addAll(
        List.of(
            action,
            "--no-superblock",
            "--format=1",
            "--hash=" + g.algorithm().kernelName(),
            "--data-block-size=" + g.blockSize(),
            "--hash-block-size=" + g.blockSize(),
            "--data-blocks=" + g.dataBlocks(),
            "--hash-offset=" + g.imageSize(),
            "--salt=" + (salt.length == 0 ? "-" : Hex.format(salt))));
    if (g.fecRoots() > 0) {
      a.addAll(
          List.of(
              "--fec-device=" + image,
              "--fec-offset=" + g.fecOffset(),
              "--fec-roots=" + g.fecRoots()));
    }
    a.add(image.toString());
    a.add(image.toString());
    return a;
  }

  /** Formats {@code image} (holding the data) in place; returns the root hash veritysetup says. */
  byte[] format(Path image) {
    ToolResult r = Veritysetup.run(common("format", image)).ok();
    for (String line : r.out().split("\n")) {
      if (line.startsWith("Root hash:")) {
        return Hex.parse("root", line.substring("Root hash:".length()).strip());
      }
    }
    throw new AssertionError("no root hash in:\n" + r);
  }

  /** {@code veritysetup verify}, whatever its result. */
  ToolResult verify(Path image, byte[] root) {
    List<String> a = common("verify", image);
    a.add(Hex.format(root));
    return Veritysetup.run(a);
  }
}
