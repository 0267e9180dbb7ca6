package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;

/**
 * The command line's side of devices at a URL that needs no origin: a URL is never an output, bad
 * URLs and remote option values are one-line refusals with the usual exit codes, and local files
 * read as before whatever remote options are given.
 */
class RemoteLocationsCommandTest {
  @TempDir Path dir;

  @Test
  void aUrlIsNeverAnOutput() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 8);
    String data = image.data().toString();
    String hash = image.hash().toString();
    ToolRun read = Jverity.run("read", data, hash, image.root(), "-o", "s3://bucket/copy");
    assertThat(read.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(read.stderrLines())
        .containsExactly(
            "jverity: --output: s3://bucket/copy (expected: a local file (a URL is read only))");
    ToolRun digest = Jverity.run("digest", data, "--out-merkle-tree", "https://h/tree");
    assertThat(digest.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(digest.stderrLines())
        .containsExactly(
            "jverity: --out-merkle-tree: https://h/tree (expected: a local file (a URL is read"
                + " only))");
    ToolRun cat =
        Jverity.run("cat", data, "--merkle-tree", hash, "--digest", "00", "-o", "http://h/x");
    assertThat(cat.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    ToolRun repair =
        Jverity.run(
            "repair", "https://h/disk.img", hash, image.root(), "--fec-device", hash + ".fec");
    assertThat(repair.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(repair.stderrLines())
        .containsExactly("jverity: repair DATA: https://h/disk.img (expected: a local file)");
    assertThat(dir.resolve("s3:")).doesNotExist();
    assertThat(dir.resolve("http:")).doesNotExist();
  }

  @Test
  void badUrlsAndRemoteValuesAreOneLineUsageErrors() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 8);
    String hash = image.hash().toString();
    ToolRun noKey = Jverity.run("verify", "s3://bucket", hash, image.root());
    assertThat(noKey.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(noKey.stderrLines())
        .containsExactly(
            "jverity: DATA: s3://bucket (expected: a file name, an http(s)://HOST/PATH URL or"
                + " s3://BUCKET/KEY)");
    ToolRun onChange =
        Jverity.run("read", image.data().toString(), hash, image.root(), "--on-change", "later");
    assertThat(onChange.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(onChange.stderrLines())
        .containsExactly("jverity: --on-change: later (expected: fail or reopen)");
    ToolRun endpoint =
        Jverity.run(
            "open", image.data().toString(), "disk", hash, image.root(), "--s3-endpoint", "minio");
    assertThat(endpoint.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(endpoint.stderrLines())
        .containsExactly("jverity: --s3-endpoint: minio (expected: an http:// or https:// URL)");
    ToolRun size = Jverity.run("digest", image.data().toString(), "--cache-max", "lots");
    assertThat(size.exitCode()).isEqualTo(ExitCode.INVALID_PARAMETER);
  }

  @Test
  void localFilesReadAsBeforeWithRemoteOptionsGiven() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 8);
    Path out = dir.resolve("copy");
    ToolRun read =
        Jverity.run(
            "read",
            image.data().toString(),
            image.hash().toString(),
            image.root(),
            "-o",
            out.toString(),
            "--json",
            "--cache-dir",
            dir.resolve("cache").toString(),
            "--on-change",
            "reopen");
    assertThat(read.exitCode()).as(read.toString()).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(image.data()));
    assertThat(read.stdout()).doesNotContain("\"remote\"");
    assertThat(dir.resolve("cache")).doesNotExist(); // nothing remote: no cache made
  }

  @Test
  void aUrlOfAnotherSchemeIsRefusedAsSuchNotTakenForAMissingFile() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 8);
    String hash = image.hash().toString();
    for (String url : new String[] {"ftp://h/disk.img", "file:///srv/disk.img", "sftp+x://h/d"}) {
      ToolRun verify = Jverity.run("verify", url, hash, image.root());
      assertThat(verify.exitCode()).as(verify.toString()).isEqualTo(ExitCode.INVALID_PARAMETER);
      assertThat(verify.stderrLines())
          .containsExactly(
              "jverity: DATA: "
                  + url
                  + " (expected: a file name or an http://, https:// or s3:// URL; scheme "
                  + url.substring(0, url.indexOf("://"))
                  + ":// is not supported)");
    }
    ToolRun output =
        Jverity.run("read", image.data().toString(), hash, image.root(), "-o", "ftp://h/x");
    assertThat(output.stderrLines())
        .containsExactly(
            "jverity: --output: ftp://h/x (expected: a local file (a URL is read only))");
    assertThat(dir.resolve("ftp:")).doesNotExist();
    // in a config too, naming its line
    Path conf =
        Files.writeString(
            dir.resolve("serve.conf"),
            "[generic]\nport = 0\n[d]\ndata = ftp://h/disk.img\nhash = "
                + hash
                + "\nroot-hash = "
                + image.root()
                + "\n");
    ToolRun serve = Jverity.run("serve", conf.toString());
    assertThat(serve.exitCode()).as(serve.toString()).isEqualTo(ExitCode.INVALID_PARAMETER);
    assertThat(serve.stderrLines()).hasSize(1);
    assertThat(serve.stderr()).contains(conf + ":4:", "scheme ftp:// is not supported");
    // a colon without "//" is a file name, as before
    Path colon = Files.copy(image.data(), dir.resolve("disk:1.img"));
    ToolRun file = Jverity.run("verify", colon.toString(), hash, image.root());
    assertThat(file.exitCode()).as(file.toString()).isZero();
    ToolRun relative = Jverity.run("verify", "./ftp://h/disk.img", hash, image.root());
    assertThat(relative.stderrLines())
        .as("a file whose name starts like a URL is named ./...")
        .containsExactly("jverity: ./ftp:/h/disk.img: data file does not exist");
  }

  @Test
  void aHostThatDoesNotResolveIsSaidSoAtOnceNotRetriedAsARefusedConnection() throws Exception {
    FormattedImage image = FormattedImage.create(dir, "disk", 8);
    long t0 = System.nanoTime();
    ToolRun read =
        Jverity.run(
            "read",
            "http://no-such-host.invalid/disk.img",
            image.hash().toString(),
            image.root(),
            "-o",
            dir.resolve("out").toString());
    long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
    assertThat(read.exitCode()).as(read.toString()).isEqualTo(ExitCode.IO_ERROR);
    assertThat(read.stderrLines())
        .containsExactly(
            "jverity: http://no-such-host.invalid/disk.img: size probe (bytes 0-65535):"
                + " no-such-host.invalid: host not found (the name does not resolve)");
    assertThat(seconds).as("no retries with backoff").isLessThan(20);
    assertThat(dir.resolve("out")).doesNotExist();
  }
}
