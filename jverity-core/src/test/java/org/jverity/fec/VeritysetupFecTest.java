package org.jverity.fec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;
import org.jverity.io.MemoryDevice;
import org.jverity.testing.Images;
import org.jverity.testkit.Veritysetup;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * veritysetup's own FEC file corrects a corrupted image read through VerifiedReader + FecRepairer.
 */
class VeritysetupFecTest {
  @ParameterizedTest(name = "{0} blocks of {1} bytes, roots {2}")
  @CsvSource({"300, 4096, 4", "2000, 512, 3"})
  void veritysetupParityRepairsTheImage(int blocks, int blockSize, int roots, @TempDir Path dir)
      throws Exception {
    byte[] data = Images.random(blocks * 31L + roots, blocks * blockSize);
    Path img = dir.resolve("img");
    Path hashFile = dir.resolve("hash");
    Path fecFile = dir.resolve("fec");
    Files.write(img, data);
    String out =
        Veritysetup.run(
                "format",
                img.toString(),
                hashFile.toString(),
                "--fec-device",
                fecFile.toString(),
                "--fec-roots",
                Integer.toString(roots),
                "--data-block-size",
                Integer.toString(blockSize),
                "--hash-block-size",
                Integer.toString(blockSize))
            .ok()
            .out();
    byte[] root =
        Hex.parse(
            "root hash",
            out.lines()
                .filter(s -> s.startsWith("Root hash:"))
                .findFirst()
                .orElseThrow()
                .substring("Root hash:".length())
                .strip());
    byte[] hash = Files.readAllBytes(hashFile);
    byte[] fec = Files.readAllBytes(fecFile);
    VerityParams params = VeritySuperblock.decode("hash", hash).toParams(0);
    FecLayout l = FecLayout.of(params, roots, 0, false, hash.length);
    assertThat(Arrays.copyOf(fec, (int) l.paritySize())).isEqualTo(FecParity.encode(l, data, hash));

    byte[] bad = data.clone();
    byte[] badHash = hash.clone();
    List<Long> corrupt = FecReadPathTest.pick(l, roots / 2, FecReadPathTest.candidates(l));
    SplittableRandom rnd = new SplittableRandom(roots);
    for (long m : corrupt) {
      byte[] a = l.isData(m) ? bad : badHash;
      long at = (l.isData(m) ? m : l.hashBlockOf(m)) * blockSize;
      for (int i = 0; i < blockSize; i++) {
        a[(int) at + i] ^= (byte) (1 + rnd.nextInt(255));
      }
    }
    assertThat(corrupt).anyMatch(l::isData).anyMatch(m -> !l.isData(m));
    var dataDevice = new MemoryDevice("img", bad);
    var hashDevice = new MemoryDevice("hash", badHash);
    FecRepairer fecRepairer =
        new FecRepairer(l, dataDevice, hashDevice, new MemoryDevice("fec", fec));
    try (VerifiedReader r =
        VerifiedReader.open(
            params,
            dataDevice,
            hashDevice,
            root,
            new HashBlockCache(1 << 20),
            ReaderOptions.DEFAULTS.withRepairer(fecRepairer))) {
      assertThat(r.read(0, data.length)).isEqualTo(data);
      assertThat(r.repairedCount()).isEqualTo(corrupt.size());
      assertThat(r.corruptionCount()).isZero();
    }
  }
}
