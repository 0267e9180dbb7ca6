package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;

/** What jverity adds to veritysetup's format and dump: JSON, seeds, root hash files, no litter. */
class FormatFeaturesTest {
  @TempDir Path dir;
  Path data;

  @BeforeEach
  void image() throws Exception {
    data = dir.resolve("rootfs.img");
    byte[] bytes = new byte[300 * 4096];
    new java.util.Random(3).nextBytes(bytes);
    Files.write(data, bytes);
  }

  private ToolRun format(String hashName, String... extra) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of("format", data.toString(), dir.resolve(hashName).toString()));
    args.addAll(List.of(extra));
    ToolRun r = Jverity.run(args);
    assertThat(r.exitCode()).as("%s", r).isZero();
    return r;
  }

  private static String json(ToolRun r, String key) {
    return r.stdout().replaceAll("(?s).*\"" + key + "\": \"?([^\",\\n]*)\"?,?\\n.*", "$1");
  }

  @Test
  void jsonGivesTheWholeLayout() {
    ToolRun r = format("a.hash", "--json", "--hash-offset", "8192");
    // 300 blocks: level 0 has 3 blocks, level 1 one; superblock at 8192, tree from block 3.
    assertThat(json(r, "hashStart")).isEqualTo("12288");
    assertThat(json(r, "hashAreaSize")).isEqualTo("16384");
    assertThat(json(r, "hashDeviceSize")).isEqualTo("28672");
    assertThat(r.stdout()).contains("\"level\": 0,\n      \"offset\": 16384,\n      \"blocks\": 3");
    assertThat(r.stdout()).contains("\"level\": 1,\n      \"offset\": 12288,\n      \"blocks\": 1");
    ToolRun dump =
        Jverity.run("dump", dir.resolve("a.hash").toString(), "--hash-offset", "8192", "--json");
    assertThat(json(dump, "uuid")).isEqualTo(json(r, "uuid"));
    assertThat(dump.stdout()).doesNotContain("rootHash").doesNotContain("identity");
    assertThat(json(r, "identity"))
        .isEqualTo("verity1:sha256:4096:4096:300:1:" + json(r, "salt") + ":" + json(r, "rootHash"));
  }

  @Test
  void aSeedMakesFormattingReproducible() throws Exception {
    ToolRun a = format("a.hash", "--seed", "secret");
    ToolRun b = format("b.hash", "--seed", "secret");
    ToolRun other = format("c.hash", "--seed", "secret", "--seed-label", "usr");
    assertThat(a.headerField("Salt"))
        .isEqualTo(b.headerField("Salt"))
        .isNotEqualTo(other.headerField("Salt"));
    assertThat(a.headerField("UUID"))
        .isEqualTo(b.headerField("UUID"))
        .isNotEqualTo(other.headerField("UUID"));
    assertThat(a.headerField("UUID"))
        .matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    assertThat(Files.readAllBytes(dir.resolve("a.hash")))
        .isEqualTo(Files.readAllBytes(dir.resolve("b.hash")));
    ToolRun random1 = format("d.hash");
    ToolRun random2 = format("e.hash");
    assertThat(random1.headerField("Salt")).isNotEqualTo(random2.headerField("Salt")).hasSize(64);
  }

  @Test
  void rootHashFileRoundTrips() throws Exception {
    Path root = dir.resolve("root.txt");
    ToolRun f = format("a.hash", "--root-hash-file", root.toString());
    assertThat(Files.readString(root)).isEqualTo(f.headerField("Root hash")).doesNotContain("\n");
    ToolRun v =
        Jverity.run(
            "verify",
            data.toString(),
            dir.resolve("a.hash").toString(),
            "--root-hash-file",
            root.toString(),
            "-v");
    assertThat(v.exitCode()).isZero();
    assertThat(v.stdout()).isEqualTo("Command successful.\n");
  }

  @Test
  void newOutputFilesAreTheOwnersOnlyAsVeritysetupMakesThem() throws Exception {
    ToolRun v =
        VeritysetupOracle.run(
            "format",
            data.toString(),
            dir.resolve("vs.hash").toString(),
            "--root-hash-file",
            dir.resolve("vs.root").toString(),
            "--fec-device",
            dir.resolve("vs.fec").toString());
    assertThat(v.exitCode()).as("%s", v).isZero();
    format(
        "jv.hash",
        "--root-hash-file",
        dir.resolve("jv.root").toString(),
        "--fec-device",
        dir.resolve("jv.fec").toString());
    for (String kind : List.of("hash", "root", "fec")) {
      assertThat(mode(dir.resolve("jv." + kind)))
          .as(kind)
          .isEqualTo(mode(dir.resolve("vs." + kind)))
          .isEqualTo("rw-------");
    }
    Path shared = dir.resolve("shared.hash"); // an existing file keeps the mode its owner gave it
    Files.createFile(shared);
    Files.setPosixFilePermissions(
        shared, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
    format("shared.hash");
    assertThat(mode(shared)).isEqualTo("rw-r--r--");
  }

  private static String mode(Path p) throws java.io.IOException {
    return java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void aRefusedFormatLeavesNoHashFileBehind() {
    Path hash = dir.resolve("never.hash");
    ToolRun r = Jverity.run("format", data.toString(), hash.toString(), "--data-blocks", "301");
    assertThat(r.exitCode()).isEqualTo(ExitCode.DEVICE_TOO_SMALL);
    assertThat(hash).doesNotExist();
  }

  @Test
  void verifyJsonReportsTheCorruption() throws Exception {
    ToolRun f = format("a.hash");
    byte[] bytes = Files.readAllBytes(data);
    bytes[42 * 4096 + 7] ^= 1;
    Files.write(data, bytes);
    ToolRun v =
        Jverity.run(
            "verify",
            data.toString(),
            dir.resolve("a.hash").toString(),
            f.headerField("Root hash"),
            "--json");
    assertThat(v.exitCode()).isEqualTo(ExitCode.CORRUPTION);
    assertThat(v.stdout())
        .contains("\"corruptedBlocks\": 1", "\"area\": \"data\",\n      \"block\": 42");
  }
}
