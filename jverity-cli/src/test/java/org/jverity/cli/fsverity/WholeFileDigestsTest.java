package org.jverity.cli.fsverity;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.fsverity.FsVerityDescriptor;
import org.jverity.fsverity.FsVerityParams;
import org.jverity.fsverity.SmallFileBatch;

/**
 * {@link WholeFileDigests}' two ways for small files, batched and alone, give the same digests; a
 * file that grew past what its walk saw and past the batch's room is refused by the batch (for the
 * caller to hash alone) without disturbing the files already in it.
 */
class WholeFileDigestsTest {
  @Test
  void batchedFilesHaveTheDigestsTheyHaveAlone(@TempDir Path dir) throws Exception {
    WholeFileDigests whole = new WholeFileDigests(FsVerityParams.defaults());
    SmallFileBatch batch = whole.batch();
    SplittableRandom r = new SplittableRandom(3);
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      byte[] b = new byte[r.nextInt(5 * 4096)];
      r.nextBytes(b);
      files.add(Files.write(dir.resolve("f" + i), b));
    }
    for (int i = 0; i < files.size(); i++) {
      assertThat(whole.addToBatch(files.get(i), Files.size(files.get(i)))).isEqualTo(i);
    }
    // Expected 1 byte, but it has more than the room left: refused, the batch as it was.
    Path grown = Files.write(dir.resolve("grown"), new byte[batch.room() + 1]);
    assertThat(whole.addToBatch(grown, 1)).isEqualTo(-1);
    assertThat(batch.size()).isEqualTo(files.size());
    batch.hash();
    for (int i = 0; i < files.size(); i++) {
      FsVerityDescriptor alone = whole.digest(files.get(i), Files.size(files.get(i)));
      assertThat(batch.descriptor(i)).as("file %d", i).isEqualTo(alone);
      assertThat(batch.fileDigest(i)).as("file %d", i).isEqualTo(whole.fileDigest(alone));
    }
    batch.clear();
    assertThat(whole.addToBatch(grown, 1))
        .as("an empty batch takes it when it fits: %d bytes", Files.size(grown))
        .isEqualTo(Files.size(grown) <= batch.maxFileBytes() ? 0 : -1);
  }
}
