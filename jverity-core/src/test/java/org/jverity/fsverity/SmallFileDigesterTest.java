package org.jverity.fsverity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.format.HashNames;
import org.jverity.io.MemoryDevice;

/**
 * {@link SmallFileDigester} against {@link FsVerityTreeBuilder} (itself checked against fsverity
 * 1.5's vectors) on the sizes a small file has and those where the tree changes shape: empty, one
 * block or less, up to a full hash block, and past it (a second level); both algorithms, 1 and 4
 * KiB blocks, salts that pad to one and to two hash input blocks; one digester reused from file to
 * file, in an array whose bytes past the file are not zero.
 */
class SmallFileDigesterTest {
  private static final HexFormat HEX = HexFormat.of();

  @ParameterizedTest(name = "{0}, {1}-byte blocks, salt ''{2}''")
  @CsvSource({
    "sha256, 4096, ''",
    "sha256, 4096, 00",
    "sha256, 1024, 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
    "sha512, 4096, abcd",
    "sha512, 1024, ''",
  })
  void sameDescriptorAndDigestAsTheTreeBuilder(String alg, int blockSize, String salt)
      throws Exception {
    FsVerityParams params =
        new FsVerityParams(HashNames.fromName(alg), blockSize, HEX.parseHex(salt));
    FsVerityTreeBuilder builder = FsVerityTreeBuilder.of(params).withThreads(1);
    SmallFileDigester digester = new SmallFileDigester(params);
    int fanOut = blockSize / params.algorithm().digestSize();
    SplittableRandom random = new SplittableRandom(blockSize * 31L + alg.hashCode());
    List<Integer> sizes =
        new ArrayList<>(
            List.of(
                0,
                1,
                blockSize - 1,
                blockSize,
                blockSize + 1,
                fanOut * blockSize,
                fanOut * blockSize + 1,
                2 * fanOut * blockSize + 7));
    for (int i = 0; i < 40; i++) {
      sizes.add(random.nextInt(17 * blockSize + 100));
    }
    byte[] buffer = new byte[(int) digester.capacity(2 * fanOut * blockSize + 7)];
    for (int size : sizes) {
      byte[] file = new byte[size];
      random.nextBytes(file);
      random.nextBytes(buffer); // what a previous, longer file left
      System.arraycopy(file, 0, buffer, 0, size);

      FsVerityDescriptor mine = digester.digest(buffer, size);
      FsVerityDescriptor theirs = builder.digest(new MemoryDevice("file", file));

      assertThat(mine).as("%d bytes", size).isEqualTo(theirs);
      assertThat(digester.fileDigest(mine)).as("%d bytes", size).isEqualTo(theirs.digest());
      assertThat(Arrays.copyOf(buffer, size)).as("the file's bytes are left").isEqualTo(file);
    }
  }

  @ParameterizedTest(name = "{0} bytes")
  @CsvSource({
    "0, 3d248ca542a24fc62d1c43b916eae5016878e2533c88238480b26128a1f1af95",
    "1, b803429503d95915829b29fdbc8bbad142f3abfd11b1cadf5526582e685c0551",
    "4096, 6ac39979016e3ddf3d39fff6cb984f7c118acdf1852919f5c100c4b142c1818e",
    "100000, f2096a36c5cdca4fa33ee8852833150bb324992e5417a9d571f1bffff73b9efc",
    "1000000, 48df0c462329cd879661bd05b39aa81b05cc16afd27a7196a559da83531d39d9",
  })
  void fsverityUtilsVectors(int size, String digest) {
    SmallFileDigester digester = new SmallFileDigester(FsVerityParams.defaults());
    byte[] data = Arrays.copyOf(FsVerityTreeBuilderTest.file(size), (int) digester.capacity(size));
    assertThat(HEX.formatHex(digester.fileDigest(digester.digest(data, size)))).isEqualTo(digest);
  }

  @Test
  void anArrayWithoutRoomForTheLastBlocksPaddingIsRefused() {
    SmallFileDigester digester = new SmallFileDigester(FsVerityParams.defaults());
    assertThat(digester.capacity(0)).isEqualTo(4096);
    assertThat(digester.capacity(4097)).isEqualTo(8192);
    assertThatThrownBy(() -> digester.digest(new byte[4097], 4097))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("4097 bytes")
        .hasMessageContaining("at least 8192");
    assertThatThrownBy(() -> digester.digest(new byte[4096], -1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
