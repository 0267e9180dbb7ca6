package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.jverity.testkit.NbdClients;

/**
 * A formatted image in a test directory: {@code blocks} seeded pseudo-random 4 KiB data blocks, its
 * hash device (with superblock) and root hash, made by {@code jverity format} in-process.
 *
 * @param data the data image
 * @param hash the hash device
 * @param root the root hash, hex
 * @param identity the image identity format printed
 */
public record FormattedImage(Path data, Path hash, String root, String identity) {

  public static FormattedImage create(Path dir, String name, int blocks) throws IOException {
    byte[] bytes = new byte[blocks * 4096];
    new SplittableRandom(blocks * 31L + name.hashCode()).nextBytes(bytes);
    Path data = Files.write(dir.resolve(name + ".img"), bytes);
    Path hash = dir.resolve(name + ".hash");
    ToolRun r = Jverity.run("format", data.toString(), hash.toString(), "--salt", "5a");
    assertThat(r.exitCode()).as(r.toString()).isZero();
    return new FormattedImage(
        data, hash, r.headerField("Root hash").strip(), r.headerField("Identity").strip());
  }

  /** Flips one byte of data block {@code block}. */
  public void corrupt(long block) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
      f.seek(block * 4096 + 100);
      int b = f.read();
      f.seek(block * 4096 + 100);
      f.write(b ^ 0x01);
    }
  }

  String sha256() throws IOException {
    return NbdClients.sha256(data);
  }
}
