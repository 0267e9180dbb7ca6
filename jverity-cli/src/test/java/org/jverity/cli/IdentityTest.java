package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.format.ImageIdentity;

/**
 * The image identity {@code format} prints, which {@code verify} and {@code read} take in place of
 * the root hash; and issue #9, the superblock the root hash does not cover.
 */
class IdentityTest {
  static final String SALT = "e48da609055204e89ae53b655ca2216dd983cf3cb829f34f63a297d106d53e2d";
  static final int BLOCKS = 300; // level 0 has 3 hash blocks, the top level 1

  @TempDir Path dir;
  Path data;
  Path hash;
  Path out;
  byte[] bytes;
  ToolRun format;

  @BeforeEach
  void image() throws Exception {
    data = dir.resolve("data.img");
    hash = dir.resolve("data.hash");
    out = dir.resolve("out.bin");
    bytes = new byte[BLOCKS * 4096];
    new java.util.Random(9).nextBytes(bytes);
    Files.write(data, bytes);
    format = Jverity.run("format", data.toString(), hash.toString(), "--salt", SALT);
    assertThat(format.exitCode()).as("%s", format).isZero();
  }

  private ToolRun read(String rootOrIdentity) {
    return Jverity.run(
        "read", data.toString(), hash.toString(), rootOrIdentity, "-o", out.toString());
  }

  /** Overwrites the superblock's data_blocks field (bytes 72..80, little-endian), nothing else. */
  private void rewriteDataBlocks(long dataBlocks) throws Exception {
    byte[] h = Files.readAllBytes(hash);
    ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN).putLong(72, dataBlocks);
    Files.write(hash, h);
  }

  @Test
  void formatPrintsTheIdentityAfterVeritysetupsLines() {
    String id = format.headerField("Identity");
    assertThat(format.stdoutLines().getLast()).isEqualTo("Identity:        \t" + id);
    assertThat(id)
        .isEqualTo(
            "verity1:sha256:4096:4096:300:1:" + SALT + ":" + format.headerField("Root hash"));
    assertThat(ImageIdentity.parse(id).toString()).isEqualTo(id);
    ToolRun json =
        Jverity.run(
            "format", data.toString(), dir.resolve("b.hash").toString(), "--salt", SALT, "--json");
    assertThat(json.stdout()).contains("\"identity\": \"" + id + "\"");
  }

  @Test
  void readWithTheIdentityWritesExactlyTheData() throws Exception {
    ToolRun r = read(format.headerField("Identity"));
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(bytes);
  }

  @Test
  void verifyTakesTheIdentityFromAFileAndGivesItBackInJson() throws Exception {
    String id = format.headerField("Identity");
    Path file = Files.writeString(dir.resolve("identity.txt"), id + "\n");
    ToolRun v =
        Jverity.run(
            "verify",
            data.toString(),
            hash.toString(),
            "--root-hash-file",
            file.toString(),
            "--json");
    assertThat(v.exitCode()).as("%s", v).isZero();
    assertThat(v.stdout()).contains("\"identity\": \"" + id + "\"");
  }

  @Test
  void anIdentityWithAnotherRootHashReadsNothing() throws Exception {
    String id = format.headerField("Identity");
    ToolRun r = read(id.substring(0, id.length() - 1) + (id.endsWith("0") ? "1" : "0"));
    assertThat(r.exitCode())
        .as("%s", r)
        .isEqualTo(ExitCode.ROOT_HASH_MISMATCH); // as verify says it
    assertThat(r.stderr()).startsWith("jverity: wrong root hash: ");
    assertThat(out).as("a failed read leaves no --output").doesNotExist();
  }

  /**
   * Issue #9 with a bare root hash: the kernel never reads the superblock, so the root hash does
   * not cover it. With data_blocks cut from 300 to 256 the tree's top block is unchanged (level 0
   * keeps its first two blocks where they were) and the root hash still matches; the cut shows only
   * in the padding of level 0's last block, which holds digests past the new end. {@code read}
   * refuses it as {@code verify} does (and veritysetup verify: "Spare area is not zeroed"), writing
   * nothing.
   */
  @Test
  void aRootHashAloneRefusesALoweredDataBlocksFieldAsVerifyDoes_issue9() throws Exception {
    rewriteDataBlocks(256);
    String root = format.headerField("Root hash");
    ToolRun r = read(root);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.CORRUPTION);
    assertThat(r.stderr()).contains("is corrupted");
    assertThat(out).as("a failed read leaves no --output").doesNotExist();
    ToolRun v = Jverity.run("verify", data.toString(), hash.toString(), root);
    assertThat(v.exitCode()).as("%s", v).isEqualTo(ExitCode.CORRUPTION);
  }

  @Test
  void theIdentityRefusesARewrittenDataBlocksField() throws Exception {
    rewriteDataBlocks(256);
    for (String command : new String[] {"read", "verify"}) {
      ToolRun r =
          command.equals("read")
              ? read(format.headerField("Identity"))
              : Jverity.run(
                  "verify", data.toString(), hash.toString(), format.headerField("Identity"));
      assertThat(r.exitCode()).as("%s %s", command, r).isEqualTo(ExitCode.SUPERBLOCK_MISMATCH);
      assertThat(r.stderr())
          .isEqualTo(
              "jverity: "
                  + hash
                  + ": superblock contradicts the identity: data blocks 256 (identity says 300)\n");
    }
    assertThat(out).as("refused before the output is opened").doesNotExist();
  }

  @Test
  void withoutASuperblockTheIdentityGivesAllTheParameters() throws Exception {
    Path bare = dir.resolve("bare.hash");
    ToolRun f =
        Jverity.run(
            "format",
            data.toString(),
            bare.toString(),
            "--no-superblock",
            "--hash",
            "sha1",
            "--format",
            "0",
            "--data-block-size",
            "1024",
            "--salt",
            "-",
            "--data-blocks",
            String.valueOf(BLOCKS * 4));
    assertThat(f.exitCode()).as("%s", f).isZero();
    String id = f.headerField("Identity");
    assertThat(id).startsWith("verity1:sha1:1024:4096:1200:0:-:");
    ToolRun r =
        Jverity.run(
            "read", data.toString(), bare.toString(), id, "--no-superblock", "-o", out.toString());
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(bytes);
  }
}
