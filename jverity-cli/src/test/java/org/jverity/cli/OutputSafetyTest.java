package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.cli.command.ExitCode;

/**
 * Issue 14, "data loss": an output is never one of the command's inputs (refused before anything is
 * opened for writing, exit 3, every input byte-identical after), and an existing output file is
 * never damaged by a command that fails (written beside it, renamed over it on success).
 */
class OutputSafetyTest {
  @TempDir Path dir;
  Path data;
  Path hash;
  Path fec;
  Path rootFile;
  String root;
  byte[] original;

  @BeforeEach
  void image() throws IOException {
    original = new byte[300 * 4096]; // two pieces of 1 MiB for read: a failure can come mid-file
    new SplittableRandom(14).nextBytes(original);
    data = Files.write(dir.resolve("d.img"), original);
    hash = dir.resolve("d.hash");
    fec = dir.resolve("d.fec");
    rootFile = dir.resolve("d.root");
    ToolRun f =
        Jverity.run(
            "format",
            data.toString(),
            hash.toString(),
            "--fec-device",
            fec.toString(),
            "--root-hash-file",
            rootFile.toString(),
            "--salt",
            "5a");
    assertThat(f.exitCode()).as("%s", f).isZero();
    root = f.headerField("Root hash").strip();
  }

  /**
   * Every file in the test directory and its bytes, to show that a refused command touched nothing.
   */
  private Map<String, byte[]> snapshot() throws IOException {
    Map<String, byte[]> m = new LinkedHashMap<>();
    try (var files = Files.list(dir)) {
      for (Path p : files.sorted().toList()) {
        if (Files.isRegularFile(p)) {
          m.put(
              p.getFileName() + (Files.isSymbolicLink(p) ? " -> " + Files.readSymbolicLink(p) : ""),
              Files.readAllBytes(p));
        }
      }
    }
    return m;
  }

  private void assertUnchanged(Map<String, byte[]> before) throws IOException {
    Map<String, byte[]> after = snapshot();
    assertThat(after.keySet())
        .as("files in the directory")
        .containsExactlyElementsOf(before.keySet());
    before.forEach((name, bytes) -> assertThat(after.get(name)).as(name).isEqualTo(bytes));
  }

  /** {@code file} under another name: itself, a hard link, a symbolic link, or spelt with "./". */
  private Path alias(Path file, String kind) throws IOException {
    return switch (kind) {
      case "same" -> file;
      case "hardlink" -> Files.createLink(dir.resolve("hard-" + file.getFileName()), file);
      case "symlink" ->
          Files.createSymbolicLink(dir.resolve("sym-" + file.getFileName()), file.getFileName());
      case "dotted" -> dir.resolve(".").resolve(file.getFileName());
      default -> throw new IllegalArgumentException(kind);
    };
  }

  private static void assertRefused(ToolRun r, String output) {
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderr())
        .as("%s", r)
        .startsWith("jverity: " + output + ": ")
        .contains("give another file");
  }

  // --- item 1: an output that is an input -----------------------------------------------------

  @ParameterizedTest(name = "read -o {0} ({1})")
  @CsvSource({
    "data, same",
    "data, hardlink",
    "data, symlink",
    "data, dotted",
    "hash, same",
    "hash, hardlink",
    "hash, symlink",
    "fec, same",
    "fec, hardlink",
    "root, symlink"
  })
  void readRefusesAnOutputThatIsAnInput(String input, String kind) throws Exception {
    Path target =
        alias(
            switch (input) {
              case "data" -> data;
              case "hash" -> hash;
              case "fec" -> fec;
              default -> rootFile;
            },
            kind);
    Map<String, byte[]> before = snapshot();
    ToolRun r =
        Jverity.run(
            "read",
            data.toString(),
            hash.toString(),
            "--root-hash-file",
            rootFile.toString(),
            "--fec-device",
            fec.toString(),
            "-o",
            target.toString());
    assertRefused(r, target.toString());
    assertUnchanged(before);
  }

  @Test
  void readOntoItsInputWithoutFecOrRootFileIsRefusedToo() throws Exception {
    Path copy = Files.copy(data, dir.resolve("d2.img"));
    Map<String, byte[]> before = snapshot();
    ToolRun r = Jverity.run("read", copy.toString(), hash.toString(), root, "-o", copy.toString());
    assertRefused(r, copy.toString());
    assertThat(r.stderr()).contains("data file");
    assertUnchanged(before);
  }

  @ParameterizedTest(name = "{0} >> its data file")
  @CsvSource({"read", "cat"})
  void aStandardOutputAppendingToAnInputIsRefused(String command) throws Exception {
    Path tree = dir.resolve("d.tree");
    String digest =
        Jverity.run("digest", data.toString(), "--out-merkle-tree", tree.toString(), "--compact")
            .stdout()
            .strip();
    Map<String, byte[]> before = snapshot();
    List<String> cmd = ServerProcess.javaCommand();
    cmd.addAll(
        command.equals("read")
            ? List.of("read", data.toString(), hash.toString(), root)
            : List.of(
                "cat",
                data.toString(),
                "--merkle-tree",
                tree.toString(),
                "--digest",
                "sha256:" + digest));
    Process p =
        new ProcessBuilder(cmd)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(data.toFile()))
            .redirectError(ProcessBuilder.Redirect.PIPE)
            .start();
    String err =
        new String(p.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
    assertThat(p.exitValue()).as(err).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(err)
        .startsWith("jverity: standard output would write over the ")
        .contains(data.toString())
        .hasLineCount(1);
    assertUnchanged(before);
  }

  @ParameterizedTest(name = "digest {0} onto {1}")
  @CsvSource({
    "--out-merkle-tree, same",
    "--out-merkle-tree, hardlink",
    "--out-descriptor, symlink",
    "--out-descriptor, same"
  })
  void digestRefusesASidecarThatIsItsFile(String option, String kind) throws Exception {
    Path target = alias(data, kind);
    Map<String, byte[]> before = snapshot();
    ToolRun r = Jverity.run("digest", hash.toString(), data.toString(), option, target.toString());
    assertRefused(r, target.toString());
    assertUnchanged(before);
  }

  @Test
  void digestRefusesTreeAndDescriptorInOneFile() throws Exception {
    Path both = dir.resolve("both.out");
    Map<String, byte[]> before = snapshot();
    ToolRun r =
        Jverity.run(
            "digest",
            data.toString(),
            "--out-merkle-tree",
            both.toString(),
            "--out-descriptor",
            dir.resolve("./both.out").toString());
    assertRefused(r, dir.resolve("./both.out").toString());
    assertUnchanged(before); // both.out not created
  }

  @ParameterizedTest(name = "sign onto {0} ({1})")
  @CsvSource({"file, same", "file, hardlink", "key, symlink", "cert, same"})
  void signRefusesASignatureOverItsInputs(String input, String kind) throws Exception {
    SigTools.rsa(dir, "signer");
    Path target =
        alias(
            switch (input) {
              case "file" -> data;
              case "key" -> dir.resolve("signer.key");
              default -> dir.resolve("signer.crt");
            },
            kind);
    Map<String, byte[]> before = snapshot();
    ToolRun r =
        Jverity.run(
            "sign",
            data.toString(),
            target.toString(),
            "--key",
            dir.resolve("signer.key").toString(),
            "--cert",
            dir.resolve("signer.crt").toString());
    assertRefused(r, target.toString());
    assertUnchanged(before);
  }

  @ParameterizedTest(name = "cat -o {0} ({1})")
  @CsvSource({"file, hardlink", "tree, symlink", "tree, same"})
  void catRefusesAnOutputThatIsAnInput(String input, String kind) throws Exception {
    Path tree = dir.resolve("d.merkle");
    ToolRun d =
        Jverity.run("digest", data.toString(), "--out-merkle-tree", tree.toString(), "--compact");
    assertThat(d.exitCode()).as("%s", d).isZero();
    Path target = alias(input.equals("file") ? data : tree, kind);
    Map<String, byte[]> before = snapshot();
    ToolRun r =
        Jverity.run(
            "cat",
            data.toString(),
            "--merkle-tree",
            tree.toString(),
            "--digest",
            "sha256:" + d.stdout().strip(),
            "-o",
            target.toString());
    assertRefused(r, target.toString());
    assertUnchanged(before);
  }

  @ParameterizedTest(name = "format {0} onto the {1} ({2})")
  @CsvSource({
    "--root-hash-file, data, hardlink",
    "--root-hash-file, data, symlink",
    "--root-hash-file, hash, same",
    "--root-hash-file, fec, hardlink",
    "HASH, key, symlink",
    "--root-hash-signature-out, cert, hardlink"
  })
  void formatRefusesAnOutputOverAnotherFile(String output, String onto, String kind)
      throws Exception {
    SigTools.rsa(dir, "signer");
    Path key = dir.resolve("signer.key");
    Path target =
        alias(
            switch (onto) {
              case "data" -> data;
              case "hash" -> hash;
              case "fec" -> fec;
              case "cert" -> dir.resolve("signer.crt");
              default -> key;
            },
            kind);
    List<String> args =
        new ArrayList<>(
            List.of(
                "format",
                data.toString(),
                output.equals("HASH") ? target.toString() : hash.toString(),
                "--fec-device",
                fec.toString(),
                "--key",
                key.toString(),
                "--cert",
                dir.resolve("signer.crt").toString()));
    if (!output.equals("--root-hash-signature-out")) {
      args.addAll(List.of("--root-hash-signature-out", dir.resolve("d.sig").toString()));
    }
    if (!output.equals("HASH")) {
      args.addAll(List.of(output, target.toString()));
    }
    Map<String, byte[]> before = snapshot();
    ToolRun r = Jverity.run(args);
    assertRefused(r, target.toString());
    assertUnchanged(before); // d.sig not created either
  }

  @ParameterizedTest(name = "format: {0}")
  @CsvSource({
    "hash on the data without --hash-offset, hash",
    "FEC on the data without --fec-offset, fec"
  })
  void formatRefusesASingleFileLayoutWithoutItsOffsets(String what, String role) throws Exception {
    Path other = dir.resolve("other.img");
    Files.write(other, original);
    Path alias = alias(other, "hardlink");
    Map<String, byte[]> before = snapshot();
    ToolRun r =
        role.equals("hash")
            ? Jverity.run("format", other.toString(), alias.toString())
            : Jverity.run(
                "format",
                other.toString(),
                dir.resolve("o.hash").toString(),
                "--fec-device",
                alias.toString());
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderr()).contains("overlaps the data");
    assertUnchanged(before); // o.hash not created
  }

  @Test
  void repairRefusesParityOverTheTree() throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
      f.seek(5 * 4096 + 9);
      f.write(f.read() ^ 0x40); // damage for repair to act on
    }
    Map<String, byte[]> before = snapshot();
    ToolRun r =
        Jverity.run(
            "repair",
            data.toString(),
            hash.toString(),
            root,
            "--fec-device",
            alias(hash, "symlink").toString());
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderrLines())
        .as("%s", r)
        .containsExactly(
            "jverity: --fec-offset: 0 (the FEC area overlaps the hash"
                + " area, bytes 0 to "
                + Files.size(hash)
                + ")");
    before.put("sym-d.hash -> d.hash", before.get("d.hash"));
    assertUnchanged(before);
  }

  @Test
  void repairRefusesTheDataAsItsOwnHashFileWithoutAHashOffset() throws Exception {
    Path other = Files.write(dir.resolve("other.img"), original);
    ToolRun f =
        Jverity.run(
            "format",
            other.toString(),
            dir.resolve("other.hash").toString(),
            "--no-superblock",
            "--salt",
            "5a",
            "--fec-device",
            dir.resolve("other.fec").toString());
    assertThat(f.exitCode()).as("%s", f).isZero();
    Path alias = alias(other, "hardlink");
    Map<String, byte[]> before = snapshot();
    ToolRun r =
        Jverity.run(
            "repair",
            other.toString(),
            alias.toString(),
            f.headerField("Root hash").strip(),
            "--no-superblock",
            "--salt",
            "5a",
            "--fec-device",
            dir.resolve("other.fec").toString());
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(r.stderrLines()).as("%s", r).hasSize(1);
    assertThat(r.stderr()).contains("overlaps the data");
    assertUnchanged(before);
  }

  // --- item 2: a failed command leaves an existing output as it was ----------------------------

  private Path precious() throws IOException {
    Path out = Files.writeString(dir.resolve("out.bin"), "precious: not to be lost\n");
    Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rw-r-----"));
    return out;
  }

  private void assertNoTemporaries() throws IOException {
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.endsWith(".jverity-tmp"));
    }
  }

  @ParameterizedTest(name = "read failing with {0} leaves -o as it was")
  @CsvSource({
    "wrong root hash, 7",
    "foreign hash file, 8",
    "corruption mid-file, 8",
    "a salt the superblock contradicts, 6"
  })
  void aFailedReadLeavesAnExistingOutputByteIdentical(String failure, int code) throws Exception {
    Path out = precious();
    byte[] kept = Files.readAllBytes(out);
    List<String> args =
        new ArrayList<>(
            List.of("read", data.toString(), hash.toString(), root, "-o", out.toString()));
    switch (failure) {
      case "wrong root hash" ->
          args.set(3, root.substring(0, 63) + (root.endsWith("0") ? "1" : "0"));
      case "foreign hash file" -> {
        byte[] other = original.clone();
        new SplittableRandom(15).nextBytes(other);
        args.set(1, Files.write(dir.resolve("other.img"), other).toString());
      }
      case "corruption mid-file" -> {
        try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
          f.seek(
              290 * 4096L
                  + 1); // past the first 1 MiB piece: the verified prefix was written before
          f.write(f.read() ^ 1);
        }
      }
      default -> args.addAll(List.of("--salt", "5b"));
    }
    ToolRun r = Jverity.run(args);
    assertThat(r.exitCode()).as("%s", r).isEqualTo(code);
    assertThat(Files.readAllBytes(out)).isEqualTo(kept);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out)))
        .isEqualTo("rw-r-----");
    assertNoTemporaries();
  }

  @Test
  void aSuccessfulReadReplacesTheOutputKeepingItsMode() throws Exception {
    Path out = precious();
    ToolRun r = Jverity.run("read", data.toString(), hash.toString(), root, "-o", out.toString());
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(original);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out)))
        .isEqualTo("rw-r-----");
    assertNoTemporaries();
  }

  @Test
  void throughASymbolicLinkTheFileItNamesIsReplaced() throws Exception {
    Path out = precious();
    Path link = Files.createSymbolicLink(dir.resolve("link.bin"), out.getFileName());
    ToolRun r =
        Jverity.run(
            "read",
            data.toString(),
            hash.toString(),
            root,
            "--length",
            "4096",
            "-o",
            link.toString());
    assertThat(r.exitCode()).as("%s", r).isZero();
    assertThat(Files.isSymbolicLink(link)).isTrue();
    assertThat(Files.readAllBytes(out)).isEqualTo(Arrays.copyOf(original, 4096));
  }

  @Test
  void aFailedCatLeavesAnExistingOutputByteIdentical() throws Exception {
    Path tree = dir.resolve("d.merkle");
    ToolRun d =
        Jverity.run("digest", data.toString(), "--out-merkle-tree", tree.toString(), "--compact");
    assertThat(d.exitCode()).as("%s", d).isZero();
    try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
      f.seek(290 * 4096L + 1);
      f.write(f.read() ^ 1);
    }
    Path out = precious();
    byte[] kept = Files.readAllBytes(out);
    ToolRun r =
        Jverity.run(
            "cat",
            data.toString(),
            "--merkle-tree",
            tree.toString(),
            "--digest",
            "sha256:" + d.stdout().strip(),
            "-o",
            out.toString());
    assertThat(r.exitCode()).as("%s", r).isEqualTo(ExitCode.CORRUPTION);
    assertThat(Files.readAllBytes(out)).isEqualTo(kept);
    assertNoTemporaries();
  }
}
