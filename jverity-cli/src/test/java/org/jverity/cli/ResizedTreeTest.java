package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.Fsverity;
import org.jverity.testkit.Tool;

/**
 * A superblock whose data_blocks was changed after format, read with a bare root hash (the
 * parameters come from the superblock): {@code read} and {@code open} must give the verdict {@code
 * veritysetup verify} gives. Lowered, the tree still hashes to the root; only the digests past the
 * new end, in its last hash blocks' padding, tell. And the same for fs-verity: a file cut short
 * with its old tree, under the digest of a descriptor holding the shorter size.
 */
class ResizedTreeTest {
  private static final int BS = 4096;
  private static final int BLOCKS = 1000; // 8 level-0 hash blocks, the last with 104 digests
  private static final int DATA_BLOCKS_AT = 72; // the superblock's data_blocks, u64 LE

  @TempDir Path dir;

  /**
   * @param claimed data_blocks written into the superblock
   * @param room data blocks the data file has past the formatted ones
   * @param veritysetup what {@code veritysetup verify} exits with
   * @param detailed what {@code jverity read} exits with (jverity's codes)
   */
  @ParameterizedTest(name = "data_blocks {0}, {1} blocks of room: veritysetup {2}")
  @CsvSource({
    "900, 0, 2, 8", // the case: the last level-0 block holds digests past the end
    "896, 0, 2, 8", // a level-0 block fewer: the top block holds one digest too many
    "999, 0, 2, 8",
    "1020, 20, 2, 8", // grown, the data has room: data block 1000 has no digest
    "1020, 0, 1, 9", // grown past the data: too small
    "1100, 0, 1, 9",
  })
  void readAndOpenGiveVerifysVerdict(long claimed, int room, int veritysetup, int detailed)
      throws Exception {
    byte[] bytes = new byte[(BLOCKS + room) * BS];
    new Random(claimed).nextBytes(bytes);
    Path data = dir.resolve("data.img");
    Path hash = dir.resolve("hash.img");
    Files.write(data, Arrays.copyOf(bytes, BLOCKS * BS));
    ToolRun f =
        VeritysetupOracle.run(
            "format", data.toString(), hash.toString(), "--salt", "5a", "--uuid", UUID);
    assertThat(f.exitCode()).as("%s", f).isZero();
    String root = f.headerField("Root hash");
    Files.write(data, bytes); // the room after the formatted blocks
    byte[] sb = Files.readAllBytes(hash);
    ByteBuffer.wrap(sb).order(ByteOrder.LITTLE_ENDIAN).putLong(DATA_BLOCKS_AT, claimed);
    Files.write(hash, sb);

    ToolRun oracle = VeritysetupOracle.run("verify", data.toString(), hash.toString(), root);
    assertThat(oracle.exitCode()).as("veritysetup: %s", oracle).isEqualTo(veritysetup);
    ToolRun verify =
        Jverity.run("verify", data.toString(), hash.toString(), root, "--veritysetup-exit-codes");
    assertThat(verify.exitCode()).as("verify: %s", verify).isEqualTo(veritysetup);

    Path out = dir.resolve("out.img");
    ToolRun read =
        Jverity.run("read", data.toString(), hash.toString(), root, "-o", out.toString());
    assertThat(read.exitCode()).as("read: %s", read).isEqualTo(detailed);
    assertThat(
            Jverity.run(
                    "read",
                    data.toString(),
                    hash.toString(),
                    root,
                    "-o",
                    out.toString(),
                    "--veritysetup-exit-codes")
                .exitCode())
        .as("read, veritysetup's codes")
        .isEqualTo(veritysetup);

    // open, read by nbdcopy: refused at start, or the copy fails; never a whole copy.
    Tool.of("nbdcopy").require();
    Path copy = dir.resolve("copy.img");
    try (HostedServer server =
        HostedServer.start(
            dir,
            "open",
            data.toString(),
            "disk",
            hash.toString(),
            root,
            "--port",
            "0",
            "--run",
            "nbdcopy \"$uri\" " + copy)) {
      int code = server.waitFor();
      assertThat(code).as("open: %s", server.stderr()).isNotZero();
      if (code == ExitCode.CORRUPTION || code == ExitCode.DEVICE_TOO_SMALL) {
        assertThat(code).as("refused at start: %s", server.stderr()).isEqualTo(detailed);
      } else {
        assertThat(server.stderr()).contains("is corrupted");
      }
    }
  }

  /**
   * fs-verity: the file cut short, its old tree, and the digest of fsverity's own descriptor with
   * the size lowered. fsverity digests the cut file to another digest; {@code cat} under either
   * serves nothing.
   */
  @Test
  void anFsVerityFileCutShortIsNotServedUnderAnyDigest() throws Exception {
    // Cut at block boundaries: the blocks kept are as they were, only the tree's padding tells.
    for (int[] c : new int[][] {{1_000_000, 168 * BS}, {300_000, 61 * BS}, {1_600_000, 244 * BS}}) {
      int size = c[0];
      int cut = c[1];
      byte[] bytes = new byte[size];
      new Random(size).nextBytes(bytes);
      Path file = dir.resolve("f" + size);
      Files.write(file, bytes);
      Fsverity.Digest whole = Fsverity.digest(file, "sha256", BS, "");
      Files.write(file, Arrays.copyOf(bytes, cut));
      byte[] descriptor = Files.readAllBytes(whole.descriptor());
      ByteBuffer.wrap(descriptor).order(ByteOrder.LITTLE_ENDIAN).putLong(8, cut); // data_size
      String lowered =
          "sha256:"
              + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(descriptor));
      String fsverity =
          Fsverity.tool().check("digest", file.toString()).out().strip().split(" ")[0];
      assertThat(fsverity).as("fsverity: not the cut file's digest").isNotEqualTo(lowered);

      Path out = dir.resolve("out" + size);
      ToolRun r =
          Jverity.run(
              "cat",
              file.toString(),
              "--merkle-tree=" + whole.tree(),
              "--digest=" + lowered,
              "-o",
              out.toString());
      assertThat(r.exitCode()).as("%d bytes cut to %d: %s", size, cut, r).isEqualTo(8);
      assertThat(r.stderr()).contains("hash block").contains("is corrupted");
      assertThat(out).doesNotExist();
      ToolRun own =
          Jverity.run(
              "cat",
              file.toString(),
              "--merkle-tree=" + whole.tree(),
              "--digest=" + fsverity,
              "-o",
              out.toString());
      assertThat(own.exitCode()).as("the cut file's digest, the old tree: %s", own).isEqualTo(7);
    }
  }

  private static final String UUID = "a60c98d2-ae9b-4865-bfcb-b4e3ace11033";
}
