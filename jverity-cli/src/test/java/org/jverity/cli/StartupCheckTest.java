package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Tool;

/**
 * {@code open} and {@code serve} check, before they listen, that the export can serve anything: a
 * wrong root hash, wrong parameters or another image's hash file refuse the server with verify's
 * diagnosis and exit code (naming the export) and no URI; damaged blocks do not, and a damaged top
 * hash block refuses only when FEC cannot correct it.
 */
class StartupCheckTest {
  @TempDir Path dir;

  @BeforeAll
  static void clients() {
    Tool.of("nbdcopy").require();
    Tool.of("nbdsh").require();
  }

  /** The server exits with {@code code}, one line on stderr, and never printed a URI. */
  private static String refused(ServerProcess server, int code) throws Exception {
    assertThat(server.waitFor()).as(server.stderr()).isEqualTo(code);
    assertThat(server.restOfStdout()).as("no URI: it never listened").isEmpty();
    assertThat(server.stderr().lines().toList()).as(server.stderr()).hasSize(1);
    return server.stderr().strip();
  }

  private static String otherRoot(String root) {
    return (root.startsWith("00") ? "11" : "00") + root.substring(2);
  }

  @Test
  void openRefusesAWrongRootHashAsVerifyDoes() throws Exception {
    FormattedImage disk = FormattedImage.create(dir, "disk", 300);
    String wrong = otherRoot(disk.root());
    ToolRun verify = Jverity.run("verify", disk.data().toString(), disk.hash().toString(), wrong);
    assertThat(verify.exitCode()).isEqualTo(ExitCode.ROOT_HASH_MISMATCH);
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            disk.data().toString(),
            "disk",
            disk.hash().toString(),
            wrong,
            "--port",
            "0")) {
      assertThat(refused(server, verify.exitCode()))
          .startsWith(
              "jverity: export disk: wrong root hash: the tree on "
                  + disk.hash()
                  + " hashes to "
                  + disk.root());
    }
  }

  @Test
  void serveRefusesAnotherImagesHashFileNamingTheExport() throws Exception {
    FormattedImage mine = FormattedImage.create(dir, "mine", 2000);
    FormattedImage other = FormattedImage.create(dir, "other", 2000);
    ToolRun verify =
        Jverity.run("verify", mine.data().toString(), other.hash().toString(), other.root());
    assertThat(verify.exitCode()).isEqualTo(ExitCode.CORRUPTION);
    assertThat(verify.stderr())
        .contains("hash file does not belong to this data: 2000 of 2000 data blocks mismatch");
    Path conf =
        Files.writeString(
            dir.resolve("serve.conf"),
            """
        [generic]
        port = 0

        [good]
        data = other.img
        hash = other.hash
        root-hash = %s

        [swapped]
        data = mine.img
        hash = other.hash
        root-hash = %s
        """
                .formatted(other.root(), other.root()));
    try (ServerProcess server = ServerProcess.start(dir, "serve", conf.toString())) {
      assertThat(refused(server, verify.exitCode()))
          .isEqualTo(
              "jverity: export swapped: hash file does not belong"
                  + " to this data: 1024 of 1024 data blocks sampled mismatch (or the data was rewritten after it was formatted)");
    }
  }

  @Test
  void wrongParametersAreRefusedAsVerifyDoes() throws Exception {
    FormattedImage disk = FormattedImage.create(dir, "disk", 300);
    Path data = disk.data();
    Path hash = dir.resolve("plain.hash");
    ToolRun f =
        Jverity.run("format", data.toString(), hash.toString(), "--salt", "5a", "--no-superblock");
    assertThat(f.exitCode()).as(f.toString()).isZero();
    String root = f.headerField("Root hash").strip();
    String[] image = {data.toString(), hash.toString(), root, "--no-superblock", "--salt", "6b"};
    ToolRun verify =
        Jverity.run(Clients.list(java.util.List.of("verify"), image).toArray(String[]::new));
    assertThat(verify.exitCode()).isEqualTo(ExitCode.WRONG_PARAMETERS);
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            data.toString(),
            "disk",
            hash.toString(),
            root,
            "--no-superblock",
            "--salt",
            "6b",
            "--port",
            "0")) {
      assertThat(refused(server, verify.exitCode()))
          .startsWith(
              "jverity: export disk: root hash does not match,"
                  + " and no block under the top matches its hash either");
    }
  }

  @Test
  void damagedBlocksDoNotStopTheServerWhichServesTheOthers() throws Exception {
    FormattedImage disk = FormattedImage.create(dir, "disk", 2000);
    for (long b : new long[] {0, 1, 2, 700, 1999}) {
      disk.corrupt(b);
    }
    flip(disk.hash(), 3 * 4096L + 5); // a level-0 hash block (0 is the superblock, 1 the top)
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            disk.data().toString(),
            "disk",
            disk.hash().toString(),
            disk.root(),
            "--port",
            "0")) {
      String uri = server.line();
      ToolRun good =
          Clients.run("nbdsh", "-u", uri, "-c", "print(h.pread(4096, 1000 * 4096).hex())");
      assertThat(good.exitCode()).as(good.toString()).isZero();
      assertThat(good.stdout().strip())
          .isEqualTo(
              java.util.HexFormat.of()
                  .formatHex(
                      java.util.Arrays.copyOfRange(
                          Files.readAllBytes(disk.data()), 1000 * 4096, 1001 * 4096)));
      ToolRun bad = Clients.run("nbdsh", "-u", uri, "-c", "h.pread(4096, 700 * 4096)");
      assertThat(bad.exitCode()).as("a damaged block still fails: " + bad).isNotZero();
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
  }

  @Test
  void aDamagedTopHashBlockRefusesUnlessFecCorrectsIt() throws Exception {
    FormattedImage disk = FormattedImage.create(dir, "disk", 2000);
    Path fec = dir.resolve("disk.fec");
    Path hash = dir.resolve("fec.hash");
    ToolRun f =
        Jverity.run(
            "format",
            disk.data().toString(),
            hash.toString(),
            "--salt",
            "5a",
            "--fec-device",
            fec.toString(),
            "--fec-roots",
            "8");
    assertThat(f.exitCode()).as(f.toString()).isZero();
    String root = f.headerField("Root hash").strip();
    flip(hash, 4096L + 40); // the top hash block: every read passes through it
    ToolRun verify = Jverity.run("verify", disk.data().toString(), hash.toString(), root);
    assertThat(verify.exitCode()).isEqualTo(ExitCode.CORRUPTION);
    try (ServerProcess server =
        ServerProcess.start(
            dir, "open", disk.data().toString(), "disk", hash.toString(), root, "--port", "0")) {
      assertThat(refused(server, verify.exitCode()))
          .isEqualTo(
              "jverity: export disk: "
                  + hash
                  + ": hash block 1 (level 1, position 4096) is corrupted: no data block can verify under it");
    }
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            disk.data().toString(),
            "disk",
            hash.toString(),
            root,
            "--port",
            "0",
            "--fec-device",
            fec.toString(),
            "--fec-roots",
            "8")) {
      String uri = server.line();
      assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(disk.sha256());
      assertThat(server.terminate()).as(server.stderr()).isZero();
      assertThat(server.stderr()).contains("jverity: export disk: hash block 1 corrected with FEC");
    }
  }

  @Test
  void underIgnoreCorruptionAWrongRootHashIsLoggedAndServed() throws Exception {
    FormattedImage disk = FormattedImage.create(dir, "disk", 64);
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            disk.data().toString(),
            "disk",
            disk.hash().toString(),
            otherRoot(disk.root()),
            "--port",
            "0",
            "--ignore-corruption")) {
      String uri = server.line();
      assertThat(server.stderr())
          .startsWith("jverity: export disk: wrong root hash: ")
          .contains("(ignored)");
      assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(disk.sha256());
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
  }

  @Test
  void underIgnoreZeroBlocksWhatZeroBlocksHoldOnTheDeviceIsNotHeldAgainstIt() throws Exception {
    byte[] original = new byte[2000 * 4096];
    byte[] head = new byte[100 * 4096];
    new java.util.SplittableRandom(7).nextBytes(head);
    System.arraycopy(head, 0, original, 0, head.length); // then 1,900 zero blocks
    Path data = Files.write(dir.resolve("sparse.img"), original);
    Path hash = dir.resolve("sparse.hash");
    ToolRun f = Jverity.run("format", data.toString(), hash.toString(), "--salt", "5a");
    assertThat(f.exitCode()).as(f.toString()).isZero();
    String root = f.headerField("Root hash").strip();
    byte[] garbage = new byte[1900 * 4096];
    new java.util.SplittableRandom(8).nextBytes(garbage);
    try (RandomAccessFile file = new RandomAccessFile(data.toFile(), "rw")) {
      file.seek(100 * 4096L);
      file.write(garbage); // free space the image never promised to keep zero
    }
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            data.toString(),
            "disk",
            hash.toString(),
            root,
            "--port",
            "0",
            "--ignore-zero-blocks")) {
      String uri = server.line();
      assertThat(NbdClients.sha256OfCopy(uri))
          .isEqualTo(NbdClients.sha256(new java.io.ByteArrayInputStream(original)));
      assertThat(server.terminate()).as(server.stderr()).isZero();
    }
    try (ServerProcess server =
        ServerProcess.start(
            dir, "open", data.toString(), "disk", hash.toString(), root, "--port", "0")) {
      assertThat(refused(server, ExitCode.CORRUPTION))
          .contains("hash file does not belong to this data");
    }
  }

  private static void flip(Path file, long at) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 0x5a);
    }
  }
}
