package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.command.ExitCode;
import org.jverity.remote.s3.AwsCredentials;
import org.jverity.remote.s3.SigV4;
import org.jverity.testkit.NbdClients;
import org.jverity.testkit.Nginx;
import org.jverity.testkit.S3Server;
import org.jverity.testkit.Tool;

/**
 * The command line over real origins: an image veritysetup made, served by nginx (HTTP, HTTPS with
 * its own CA) and by s3proxy (SigV4), read with {@code read} and served with {@code serve} to
 * nbdcopy; every byte identical to the data, a flipped bit in transit never returned, an object
 * replaced under the server one line and EIO, refused credentials one line and exit 16.
 */
class RemoteEndToEndTest {
  private static final String IDENTITY = "jverity-cli-identity";
  private static final String SECRET = "jverity-cli-secret";
  private static final String BUCKET = "images";
  private static final int DATA_BYTES = 2 << 20;

  @TempDir static Path dir;
  private static Nginx nginx;
  private static S3Server s3;
  private static Path data;
  private static Path hash;
  private static String root;

  @BeforeAll
  static void origins() throws Exception {
    Tool.of("nbdcopy").require();
    data = dir.resolve("d.img");
    hash = dir.resolve("d.hash");
    byte[] bytes = new byte[DATA_BYTES];
    new Random(16).nextBytes(bytes);
    Files.write(data, bytes);
    ToolRun format = VeritysetupOracle.run("format", data.toString(), hash.toString());
    assertThat(format.exitCode()).as(format.toString()).isZero();
    root = format.headerField("Root hash");
    // /corrupt/ flips a bit of byte 100 in the first of every 1000 GETs: the first read of it only
    nginx =
        Nginx.start(
            Files.createDirectories(dir.resolve("nginx")),
            Nginx.Faults.DEFAULTS.withCorrupt(100, 1000));
    Files.copy(data, nginx.www().resolve("d.img"));
    Files.copy(hash, nginx.www().resolve("d.hash"));
    AwsCredentials keys = new AwsCredentials(IDENTITY, SECRET, null, "test");
    SigV4 signer = new SigV4("us-east-1");
    s3 =
        S3Server.start(
            Files.createDirectories(dir.resolve("s3")),
            IDENTITY,
            SECRET,
            (method, uri, headers, payload) ->
                signer.headers(keys, Clock.systemUTC().instant(), method, uri, headers, payload));
    s3.createBucket(BUCKET);
    s3.put(BUCKET, "d.img", data);
    s3.put(BUCKET, "d.hash", hash);
  }

  @AfterAll
  static void stop() {
    if (s3 != null) {
      s3.close();
    }
    if (nginx != null) {
      nginx.close();
    }
  }

  /** The environment of a process using the test's S3 keys (and nothing of ~/.aws). */
  private static Map<String, String> awsEnvironment(String secret) {
    return Map.of(
        "AWS_ACCESS_KEY_ID",
        IDENTITY,
        "AWS_SECRET_ACCESS_KEY",
        secret,
        "AWS_REGION",
        "us-east-1",
        "AWS_SHARED_CREDENTIALS_FILE",
        dir.resolve("no-credentials").toString(),
        "AWS_CONFIG_FILE",
        dir.resolve("no-config").toString());
  }

  /** {@code jverity args...} in a child JVM with {@code env}: S3 keys come from the environment. */
  private static ToolRun child(Map<String, String> env, String... args) throws Exception {
    List<String> cmd = ServerProcess.javaCommand();
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "child", ".out");
    Path err = Files.createTempFile(dir, "child", ".err");
    ProcessBuilder b = Jverity.detailed(new ProcessBuilder(cmd));
    b.environment().keySet().removeIf(k -> k.startsWith("AWS_")); // only the keys env gives
    b.environment().putAll(env);
    Process p = b.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    try {
      assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    } finally {
      p.destroyForcibly(); // a no-op once it has exited
    }
    return new ToolRun(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  @Test
  void readOverHttpAndHttpsIsTheData() throws Exception {
    Path out = dir.resolve("http.out");
    ToolRun http =
        Jverity.run(
            "read",
            nginx.url("d.img").toString(),
            nginx.url("d.hash").toString(),
            root,
            "-o",
            out.toString(),
            "--json");
    assertThat(http.exitCode()).as(http.toString()).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(data));
    assertThat(compact(http.stdout()))
        .contains("\"remote\":{\"devices\":[{\"role\":\"data\",\"origin\":\"" + nginx.url("d.img"))
        .containsPattern("\"requests\":[1-9]")
        .containsPattern("\"bytes\":[1-9][0-9]{6,}")
        .contains("\"cacheHits\":", "\"cacheMisses\":", "\"retries\":", "\"rereads\":0");

    ToolRun verify =
        Jverity.run(
            "verify",
            nginx.url("d.img").toString(),
            nginx.url("d.hash").toString(),
            root,
            "--json");
    assertThat(verify.exitCode()).as(verify.toString()).isZero();
    assertThat(compact(verify.stdout()))
        .contains("\"ok\":true")
        .contains("\"remote\":{\"devices\":[{\"role\":\"data\",\"origin\":\"" + nginx.url("d.img"))
        .containsPattern("\"requests\":[1-9]");

    Path tls = dir.resolve("https.out");
    ToolRun https =
        Jverity.run(
            "read",
            nginx.httpsUrl("d.img").toString(),
            nginx.httpsUrl("d.hash").toString(),
            root,
            "-o",
            tls.toString(),
            "--ca-cert",
            nginx.certificate().toString());
    assertThat(https.exitCode()).as(https.toString()).isZero();
    assertThat(Files.readAllBytes(tls)).isEqualTo(Files.readAllBytes(data));
  }

  @Test
  void digestAndCatOfAUrlAreThoseOfTheFile() throws Exception {
    Path tree = dir.resolve("d.tree");
    ToolRun local = Jverity.run("digest", data.toString(), "--out-merkle-tree", tree.toString());
    assertThat(local.exitCode()).as(local.toString()).isZero();
    String digest = local.stdout().split(" ")[0];
    Files.copy(tree, nginx.www().resolve("d.tree"), StandardCopyOption.REPLACE_EXISTING);
    ToolRun remote = Jverity.run("digest", "--compact", nginx.url("d.img").toString());
    assertThat(remote.exitCode()).as(remote.toString()).isZero();
    assertThat("sha256:" + remote.stdout().strip()).isEqualTo(digest);
    Path out = dir.resolve("cat.out");
    ToolRun cat =
        Jverity.run(
            "cat",
            nginx.url("d.img").toString(),
            "--merkle-tree",
            nginx.url("d.tree").toString(),
            "--digest",
            digest,
            "-o",
            out.toString());
    assertThat(cat.exitCode()).as(cat.toString()).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(data));
  }

  @Test
  void openOverHttpsServesTheData() throws Exception {
    try (ServerProcess server =
        ServerProcess.start(
            dir,
            "open",
            nginx.httpsUrl("d.img").toString(),
            "web",
            nginx.httpsUrl("d.hash").toString(),
            root,
            "--port",
            "0",
            "--ca-cert",
            nginx.certificate().toString(),
            "--runtime-dir",
            dir.resolve("open-run").toString())) {
      String uri = server.line();
      Path copy = dir.resolve("open.out");
      ToolRun nbdcopy = Clients.run("nbdcopy", uri, copy.toString());
      assertThat(nbdcopy.exitCode()).as(nbdcopy + server.stderr()).isZero();
      assertThat(Files.readAllBytes(copy)).isEqualTo(Files.readAllBytes(data));
      ToolRun status =
          Jverity.run("status", "web", "--runtime-dir", dir.resolve("open-run").toString());
      assertThat(row(status, "status")).isEqualTo("verified");
      assertThat(row(status, "data origin")).isEqualTo(nginx.httpsUrl("d.img").toString());
      assertThat(row(status, "origin")).matches("[1-9][0-9]* requests, [1-9][0-9]* bytes, .*");
      assertThat(server.terminate()).isZero();
    }
  }

  @Test
  void aFlippedBitInTransitIsNeverReturned() throws Exception {
    Path out = dir.resolve("corrupt.out");
    ToolRun read =
        Jverity.run(
            "read",
            nginx.url("corrupt/d.img").toString(),
            nginx.url("d.hash").toString(),
            root,
            "-o",
            out.toString(),
            "--json");
    assertThat(read.exitCode()).as(read.toString()).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(data));
    assertThat(compact(read.stdout()))
        .containsPattern("\"rereads\":[1-9]")
        .contains("\"corruptions\":0");
    assertThat(read.stderr()).isEmpty();
  }

  @Test
  void s3KeysComeFromTheProfileUnderHomeAsTheAwsCliFindsThem() throws Exception {
    // A HOME that is not the passwd entry's (CI, a container, sudo -E): the AWS CLI's ~ is $HOME.
    Path home = dir.resolve("fake-home");
    Files.createDirectories(home.resolve(".aws"));
    Files.writeString(
        home.resolve(".aws/credentials"),
        "[default]\naws_access_key_id = "
            + IDENTITY
            + "\naws_secret_access_key = "
            + SECRET
            + "\n");
    Files.writeString(home.resolve(".aws/config"), "[default]\nregion = us-east-1\n");
    Map<String, String> env = Map.of("HOME", home.toString());
    // the peer: the AWS CLI takes the keys from there
    ProcessBuilder aws =
        new ProcessBuilder(
                Tool.of("aws").require().toString(), "configure", "get", "aws_access_key_id")
            .redirectErrorStream(true);
    aws.environment().keySet().removeIf(k -> k.startsWith("AWS_"));
    aws.environment().putAll(env);
    Process p = aws.start();
    try {
      String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(said.strip()).as("aws configure get, HOME=%s", home).isEqualTo(IDENTITY);
    } finally {
      p.destroyForcibly();
    }
    Path out = dir.resolve("home.out");
    ToolRun read =
        child(
            env,
            "read",
            "s3://" + BUCKET + "/d.img",
            "s3://" + BUCKET + "/d.hash",
            root,
            "-o",
            out.toString(),
            "--s3-endpoint",
            s3.endpoint().toString());
    assertThat(read.exitCode()).as("keys found under $HOME: %s", read).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(data));
  }

  @Test
  void readOverS3IsTheDataAndWrongKeysAreOneLineAndExit16() throws Exception {
    Path out = dir.resolve("s3.out");
    ToolRun read =
        child(
            awsEnvironment(SECRET),
            "read",
            "s3://" + BUCKET + "/d.img",
            "s3://" + BUCKET + "/d.hash",
            root,
            "-o",
            out.toString(),
            "--s3-endpoint",
            s3.endpoint().toString());
    assertThat(read.exitCode()).as(read.toString()).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(data));

    ToolRun refused =
        child(
            awsEnvironment("not-the-secret"),
            "read",
            "s3://" + BUCKET + "/d.img",
            "s3://" + BUCKET + "/d.hash",
            root,
            "-o",
            dir.resolve("refused.out").toString(),
            "--s3-endpoint",
            s3.endpoint().toString());
    assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(ExitCode.ORIGIN_DENIED);
    assertThat(refused.stderrLines()).hasSize(1);
    assertThat(refused.stderr()).startsWith("jverity: ").contains("403").doesNotContain(SECRET);
    assertThat(dir.resolve("refused.out")).doesNotExist();
  }

  @Test
  void serveOverS3ToNbdcopyThenAReplacedObjectIsOneLineEioAndShownByStatus() throws Exception {
    s3.put(BUCKET, "served.img", data);
    Path run = dir.resolve("serve-run");
    Path conf =
        Files.writeString(
            dir.resolve("serve.conf"),
            """
            [generic]
            port = 0
            metrics-port = 0
            runtime-dir = %s
            s3-endpoint = %s
            cache-max = 64K
            [disk]
            data = s3://%s/served.img
            hash = s3://%s/d.hash
            root-hash = %s
            """
                .formatted(run, s3.endpoint(), BUCKET, BUCKET, root));
    try (ServerProcess server =
        ServerProcess.start(dir, awsEnvironment(SECRET), "serve", conf.toString())) {
      String uri = server.line();
      Path copy = dir.resolve("nbd.out");
      ToolRun nbdcopy = Clients.run("nbdcopy", uri, copy.toString());
      assertThat(nbdcopy.exitCode()).as(nbdcopy + server.stderr()).isZero();
      assertThat(Files.readAllBytes(copy)).isEqualTo(Files.readAllBytes(data));
      String metrics = scrape(server.stderr());
      assertThat(metrics)
          .containsPattern("jverity_origin_requests_total\\{export=\"disk\"} [1-9]")
          .containsPattern("jverity_origin_bytes_total\\{export=\"disk\"} [1-9]")
          .contains("jverity_cache_misses_total{export=\"disk\"}")
          .contains("jverity_origin_request_duration_seconds_bucket{export=\"disk\",le=\"+Inf\"}")
          .contains("jverity_origin_object_changed{export=\"disk\"} 0.0");

      byte[] other = Files.readAllBytes(data);
      other[0] ^= 1;
      s3.put(BUCKET, "served.img", Files.write(dir.resolve("other.img"), other));
      for (int i = 0; i < 2; i++) {
        ToolRun again = Clients.run("nbdcopy", uri, dir.resolve("again" + i).toString());
        assertThat(again.exitCode()).as(again.toString()).isNotZero(); // EIO
      }
      ToolRun status = Jverity.run("status", "disk", "--runtime-dir", run.toString());
      assertThat(row(status, "status")).isEqualTo("changed");
      assertThat(row(status, "changed")).startsWith("data object changed since open: ETag ");
      assertThat(row(status, "data origin")).isEqualTo("s3://" + BUCKET + "/served.img");
      ToolRun json = Jverity.run("status", "disk", "--runtime-dir", run.toString(), "--json");
      assertThat(compact(json.stdout()))
          .contains("\"changed\":\"data object changed since open: ETag ")
          .contains("\"role\":\"data\",\"origin\":\"s3://" + BUCKET + "/served.img\"");
      assertThat(scrape(server.stderr()))
          .contains("jverity_origin_object_changed{export=\"disk\"} 1.0");
      List<String> said =
          server.stderr().lines().filter(l -> l.contains("changed since open")).toList();
      assertThat(said)
          .hasSize(1)
          .allMatch(
              l ->
                  l.matches("jverity: export disk: data object changed since open: ETag .+ -> .+"));
      assertThat(server.stderr()).doesNotContain("is corrupted");
      assertThat(server.terminate()).isZero();
    }
  }

  @Test
  void onChangeReopenSaysInOneLineWhichExportAndObjectItReopenedAndWhatChanged() throws Exception {
    Path served = nginx.www().resolve("reopened.img");
    Files.copy(data, served);
    Path conf =
        Files.writeString(
            dir.resolve("reopen.conf"),
            """
            [generic]
            port = 0
            runtime-dir = %s
            cache-max = 64K
            on-change = reopen
            [disk]
            data = %s
            hash = %s
            root-hash = %s
            """
                .formatted(
                    dir.resolve("reopen-run"),
                    nginx.url("reopened.img"),
                    nginx.url("d.hash"),
                    root));
    try (ServerProcess server = ServerProcess.start(dir, Map.of(), "serve", conf.toString())) {
      String uri = server.line();
      assertThat(NbdClients.sha256OfCopy(uri)).isEqualTo(NbdClients.sha256(data));
      // the same bytes stored anew: nginx's ETag (mtime-size) changes, so the server reopens it
      Files.setLastModifiedTime(
          served, FileTime.from(Files.getLastModifiedTime(served).toInstant().plusSeconds(3600)));
      assertThat(NbdClients.sha256OfCopy(uri))
          .as("read on over the new object; log: %s", server.stderr())
          .isEqualTo(NbdClients.sha256(data));
      List<String> said = server.stderr().lines().filter(l -> l.contains("reopened")).toList();
      assertThat(said)
          .as(server.stderr())
          .hasSize(1)
          .allMatch(
              l ->
                  l.matches(
                      "jverity: export disk: "
                          + Pattern.quote(nginx.url("reopened.img").toString())
                          + " changed since open \\(ETag \"[0-9a-f]+-[0-9a-f]+\" -> \"[0-9a-f]+-"
                          + Long.toHexString(DATA_BYTES)
                          + "\"\\): reopened \\(--on-change reopen\\), reading the new object"));
      assertThat(server.terminate()).isZero();
    }
  }

  /** JSON without the whitespace of its layout (outside strings). */
  private static String compact(String json) {
    StringBuilder b = new StringBuilder();
    boolean inString = false;
    for (int i = 0; i < json.length(); i++) {
      char c = json.charAt(i);
      if (c == '"' && (i == 0 || json.charAt(i - 1) != '\\')) {
        inString = !inString;
      }
      if (inString || !Character.isWhitespace(c)) {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** A row of {@code status}'s report (" label: value"), or null. */
  private static String row(ToolRun status, String label) {
    for (String line : status.stdoutLines()) {
      if (line.startsWith("  " + label + ":")) {
        return line.substring(label.length() + 3).strip();
      }
    }
    return null;
  }

  private static final Pattern METRICS = Pattern.compile("metrics: (http://\\S+/metrics)");

  private static String scrape(String serverLog) throws IOException, InterruptedException {
    Matcher m = METRICS.matcher(serverLog);
    assertThat(m.find()).as(serverLog).isTrue();
    try (HttpClient c = HttpClient.newHttpClient()) {
      HttpResponse<String> r =
          c.send(
              HttpRequest.newBuilder(URI.create(m.group(1))).build(),
              HttpResponse.BodyHandlers.ofString());
      return r.body();
    }
  }
}
