package org.jverity.fsverity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.format.HashNames;
import org.jverity.hash.BlockHasher;
import org.jverity.hash.HashAlgorithm;
import org.jverity.testing.TwoStreams;

/**
 * {@link SmallFileBatch} against {@link SmallFileDigester} (itself checked against the tree builder
 * and fsverity's vectors), file by file, on batches of files of every shape it takes: empty, less
 * than a block, whole blocks, up to a full hash block; both algorithms, 1 and 4 KiB blocks, salts;
 * batches filled to their room or to their file count, one batch reused; and that a batch of
 * one-block SHA-256 files pairs their blocks across files where the two-stream path runs.
 */
class SmallFileBatchTest {
  private static final HexFormat HEX = HexFormat.of();

  @ParameterizedTest(name = "{0}, {1}-byte blocks, salt ''{2}'', {3} bytes, {4} files a batch")
  @CsvSource({
    "sha256, 4096, '', 65536, 16",
    "sha256, 4096, 00, 1048576, 1000",
    "sha256, 1024, 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f, 300000, 7",
    "sha512, 4096, abcd, 200000, 1000",
    "sha512, 1024, '', 4096, 3",
  })
  void sameDescriptorsAndDigestsAsOneFileAtATime(
      String alg, int blockSize, String salt, int capacity, int maxFiles) {
    FsVerityParams params =
        new FsVerityParams(HashNames.fromName(alg), blockSize, HEX.parseHex(salt));
    SmallFileBatch batch = new SmallFileBatch(params, capacity, maxFiles);
    SmallFileDigester digester = new SmallFileDigester(params);
    int max = (int) batch.maxFileBytes();
    assertThat(max).isEqualTo(blockSize / params.algorithm().digestSize() * blockSize);
    SplittableRandom random = new SplittableRandom(capacity * 31L + alg.hashCode());
    List<Integer> sizes =
        new ArrayList<>(List.of(0, 1, blockSize - 1, blockSize, blockSize + 1, 3 * blockSize, max));
    for (int i = 0; i < 300; i++) {
      sizes.add(random.nextInt(4) == 0 ? random.nextInt(max + 1) : random.nextInt(4 * blockSize));
    }
    List<byte[]> files = new ArrayList<>();
    int checked = 0;
    for (int size : sizes) {
      if (!batch.fits(size)) {
        checked += checkBatch(batch, digester, files);
      }
      if (!batch.fits(size)) {
        continue; // larger than this batch's whole capacity
      }
      byte[] file = new byte[size];
      random.nextBytes(file);
      // what a previous batch left in the file's last block: the batch zeroes its padding
      int end = batch.end() + (int) Math.ceilDiv(size, blockSize) * blockSize;
      for (int i = batch.end(); i < end; i++) {
        batch.buffer()[i] = (byte) random.nextInt();
      }
      System.arraycopy(file, 0, batch.buffer(), batch.end(), size);
      assertThat(batch.add(size)).isEqualTo(files.size());
      files.add(file);
    }
    checked += checkBatch(batch, digester, files);
    assertThat(checked).isGreaterThan(sizes.size() / 2);
  }

  /** Hashes the batch, compares each file with the digester's, clears both; returns the count. */
  private static int checkBatch(
      SmallFileBatch batch, SmallFileDigester digester, List<byte[]> files) {
    batch.hash();
    for (int i = 0; i < files.size(); i++) {
      byte[] file = files.get(i);
      byte[] array = new byte[(int) digester.capacity(file.length)];
      System.arraycopy(file, 0, array, 0, file.length);
      FsVerityDescriptor theirs = digester.digest(array, file.length);
      assertThat(batch.descriptor(i)).as("file %d, %d bytes", i, file.length).isEqualTo(theirs);
      assertThat(batch.fileDigest(i))
          .as("file %d, %d bytes", i, file.length)
          .isEqualTo(digester.fileDigest(theirs));
    }
    int n = files.size();
    batch.clear();
    files.clear();
    return n;
  }

  @Test
  void oneBlockFilesArePairedAcrossFiles() {
    assumeTrue(TwoStreams.expected(), "this CPU has no two-stream SHA-256 (or it is off)");
    FsVerityParams params = FsVerityParams.defaults();
    assertThat(params.algorithm()).isEqualTo(HashAlgorithm.SHA256);
    SmallFileBatch batch = new SmallFileBatch(params, 1 << 20, 64);
    SplittableRandom random = new SplittableRandom(5);
    for (int i = 0; i < 64; i++) {
      int size = 1 + random.nextInt(4096);
      byte[] file = new byte[size];
      random.nextBytes(file);
      System.arraycopy(file, 0, batch.buffer(), batch.end(), size);
      batch.add(size);
    }
    long before = BlockHasher.sha256PairsHashed();
    batch.hash();
    // 64 data blocks and 64 descriptors, two at a time: each file alone would have paired none
    assertThat(BlockHasher.sha256PairsHashed() - before).isGreaterThanOrEqualTo(64);
  }

  @Test
  void takesOnlyWhatFits() {
    FsVerityParams params = FsVerityParams.defaults();
    SmallFileBatch batch = new SmallFileBatch(params, 3 * 4096 + 100, 2);
    assertThat(batch.fits(3 * 4096)).isTrue();
    assertThat(batch.fits(3 * 4096 + 1)).as("past its room").isFalse();
    assertThat(batch.fits(-1)).isFalse();
    batch.add(4097); // two blocks
    assertThat(batch.end()).isEqualTo(2 * 4096);
    assertThat(batch.fits(4097)).isFalse();
    assertThat(batch.fits(4096)).isTrue();
    batch.add(0);
    assertThat(batch.fits(0)).as("its file count is reached").isFalse();
    assertThatThrownBy(() -> batch.add(1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> batch.descriptor(0)).isInstanceOf(IllegalStateException.class);
    batch.hash();
    assertThat(batch.descriptor(1).dataSize()).isZero();
    batch.clear();
    assertThat(batch.size()).isZero();
    assertThat(batch.fits(3 * 4096)).isTrue();
    SmallFileBatch big = new SmallFileBatch(params, 1 << 22, 10);
    assertThat(big.fits(128 * 4096)).as("one hash block of data blocks").isTrue();
    assertThat(big.fits(128 * 4096 + 1)).as("a second level: not for a batch").isFalse();
  }
}
