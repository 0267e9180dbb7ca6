package org.jverity.ddi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jverity.testkit.Tool;
import org.jverity.text.Json;

/**
 * systemd-repart 252 building a reference DDI in a plain file from a file system image
 * (CopyBlocks), with its verity partition and, given a key, its signature partition. It needs root:
 * its verity step goes through a loop device (systemd#24925).
 *
 * @param image the DDI
 * @param rootHash the root hash repart reports
 * @param partitions repart's JSON lines, one map a partition
 */
record Repart(Path image, String rootHash, List<Map<?, ?>> partitions) {

  /** Builds {@code out} with a {@code data} ("root" or "usr") partition of {@code fs}. */
  static Repart build(Path dir, Path fs, String data, Path key, Path cert) throws IOException {
    Path defs = Files.createDirectories(dir.resolve("repart.d-" + data));
    Files.writeString(
        defs.resolve("10-" + data + ".conf"),
        section(data, "data") + "CopyBlocks=" + fs.toAbsolutePath() + "\n");
    Files.writeString(
        defs.resolve("20-" + data + "-verity.conf"), section(data + "-verity", "hash"));
    if (key != null) {
      Files.writeString(
          defs.resolve("30-" + data + "-verity-sig.conf"),
          section(data + "-verity-sig", "signature"));
    }
    Path out = dir.resolve("repart-" + data + (key != null ? "-signed" : "") + ".raw");
    List<String> args =
        new ArrayList<>(
            List.of(
                "--empty=create",
                "--size=auto",
                "--dry-run=no",
                "--json=short",
                "--seed=0b8cbd47-7b6d-4a9d-9d3f-3d6a3f1f2a10",
                "--definitions=" + defs));
    if (key != null) {
      args.add("--private-key=" + key);
      args.add("--certificate=" + cert);
    }
    args.add(out.toString());
    String json = Tool.of("systemd-repart").run(args).ok().out();
    List<Map<?, ?>> parts = new ArrayList<>();
    String root = null;
    for (Object o : (List<?>) Json.parse(json)) {
      Map<?, ?> p = (Map<?, ?>) o;
      parts.add(p);
      if (p.get("roothash") instanceof String r) {
        root = r;
      }
    }
    return new Repart(out, root, parts);
  }

  private static String section(String type, String verity) {
    return "[Partition]\nType=" + type + "\nVerity=" + verity + "\nVerityMatchKey=" + "ddi\n";
  }
}
