package org.jverity.cli.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.ScratchBash;
import org.jverity.cli.ServerProcess;
import org.jverity.cli.TestLauncher;
import org.jverity.cli.readme.ReadmeBlocks.Block;
import org.jverity.cli.readme.ReadmeExamples.Entry;
import org.jverity.cli.readme.ReadmeExamples.Kind;
import org.jverity.remote.s3.AwsCredentials;
import org.jverity.remote.s3.SigV4;
import org.jverity.testkit.AvbTestKeys;
import org.jverity.testkit.Nginx;
import org.jverity.testkit.S3Server;
import org.jverity.testkit.Tool;

/**
 * Every example of the README and of {@code docs/} runs as written (issues 27, 28): each fenced
 * block in the order of {@link ReadmeBlocks#FILES}, in one shared scratch directory holding the
 * files the examples name, after only the substitutions {@link ReadmeExamples} lists. A block no
 * entry recognises fails {@link #everyBlockHasOneEntry}. The README's install methods need a
 * release build and are left to the release install test ({@link Kind#RELEASE}).
 */
class ReadmeExamplesTest {
  /** The repository: the README and {@code docs/}. */
  private static final Path ROOT = Path.of("..");

  private static final String S3_IDENTITY = "jverity-readme-identity";
  private static final String S3_CREDENTIAL = "jverity-readme-credential";

  @TempDir static Path dir;
  private static Nginx nginx;
  private static S3Server s3;
  private static String loop;
  private static final Map<String, String> env = new HashMap<>();

  @BeforeAll
  static void prepare() throws Exception {
    for (String tool :
        List.of(
            "veritysetup",
            "fsverity",
            "openssl",
            "nbdinfo",
            "nbdcopy",
            "nbdsh",
            "nbdfuse",
            "mkfs.ext4",
            "losetup",
            "systemd-socket-activate",
            "aws")) {
      Tool.of(tool).require();
    }
    Files.copy(AvbTestKeys.path("testkey_rsa4096.pem"), dir.resolve("system_key.pem"));
    Files.copy(AvbTestKeys.path("testkey_rsa4096.pem"), dir.resolve("boot_key.pem"));
    Files.copy(AvbTestKeys.path("testkey_rsa2048.pem"), dir.resolve("vbmeta_key.pem"));
    TestLauncher.write(dir);
    nginx = Nginx.start(dir.resolve("nginx"));
    Files.createDirectories(nginx.www().resolve("images/v7"));
    AwsCredentials keys = new AwsCredentials(S3_IDENTITY, S3_CREDENTIAL, null, "test");
    SigV4 signer = new SigV4("us-east-1");
    s3 =
        S3Server.start(
            dir.resolve("s3proxy"),
            S3_IDENTITY,
            S3_CREDENTIAL,
            (method, uri, headers, payloadHash) ->
                signer.headers(
                    keys, Clock.systemUTC().instant(), method, uri, headers, payloadHash));
    s3.createBucket("images");
    env.putAll(environment());
    Files.writeString(
        dir.resolve("home/.aws/credentials"),
        "[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n[reader]\n"
                .formatted(S3_IDENTITY, S3_CREDENTIAL)
            + "aws_access_key_id = %s\naws_secret_access_key = %s\n"
                .formatted(S3_IDENTITY, S3_CREDENTIAL));
    Files.writeString(
        dir.resolve("home/.aws/config"),
        "[default]\nregion = us-east-1\n[profile reader]\nregion = us-east-1\n");
    ScratchBash.Result fixtures = bash(resource("fixtures.sh"), 300);
    assertThat(fixtures.code()).as("fixtures.sh: %s", fixtures.output()).isZero();
    ScratchBash.Result attach = bash("cp data.img loop.img && losetup -f --show loop.img", 30);
    assertThat(attach.code()).as("losetup: %s", attach.output()).isZero();
    loop = attach.output().strip();
    env.put("LOOP", loop);
    env.put("TREE_END", Long.toString(Files.size(dir.resolve("data.hash"))));
  }

  /** What each block's bash sees: the scratch directory's home, runtime and temporary dirs. */
  private static Map<String, String> environment() throws IOException {
    Files.createDirectories(dir.resolve("home/.aws"));
    Path prelude = dir.resolve("prelude.sh");
    Files.writeString(prelude, resource("prelude.sh"));
    Map<String, String> e = new HashMap<>();
    // The system's tools first, as Tool gives them: nbdsh needs the system python3's nbd module.
    e.put("PATH", "/usr/bin:/usr/sbin:/bin:/sbin:" + System.getenv().getOrDefault("PATH", ""));
    e.put("HOME", dir.resolve("home").toString());
    e.put("TMPDIR", dir.resolve("tmp").toString());
    e.put("JVERITY_RUNTIME_DIR", dir.resolve("run").toString());
    e.put("README_PRELUDE", prelude.toString());
    e.put("SECRET", "the README's seed");
    e.put("ORIGIN", nginx.url("").toString().replaceAll("/$", ""));
    e.put("WWW", nginx.www().toString());
    e.put("AWS_ENDPOINT_URL_S3", s3.endpoint().toString());
    e.put("AWS_SHARED_CREDENTIALS_FILE", dir.resolve("home/.aws/credentials").toString());
    e.put("AWS_CONFIG_FILE", dir.resolve("home/.aws/config").toString());
    e.put("JAVA", ServerProcess.javaCommand().get(0));
    e.put("TEST_CLASSPATH", System.getProperty("java.class.path"));
    return e;
  }

  @AfterAll
  static void release() throws Exception {
    try {
      if (loop != null) {
        bash("losetup -d " + loop, 30);
      }
    } finally {
      try {
        if (nginx != null) {
          nginx.close();
        }
      } finally {
        if (s3 != null) {
          s3.close();
        }
      }
    }
  }

  @Test
  void everyDocIsRun() throws IOException {
    List<String> docs;
    try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
      docs =
          files
              .map(f -> "docs/" + f.getFileName())
              .filter(f -> f.endsWith(".md"))
              .sorted()
              .toList();
    }
    assertThat(ReadmeBlocks.FILES).as("ReadmeBlocks.FILES").containsAll(docs);
  }

  /**
   * The release install test runs the README's install methods; any other block left to it would
   * run nowhere, so the kind is only for that section, and every block there is of it.
   */
  @Test
  void onlyTheInstallSectionIsLeftToTheReleaseTest() throws IOException {
    List<String> problems = new ArrayList<>();
    int install = 0;
    for (Block b : ReadmeBlocks.all(ROOT)) {
      boolean inInstall =
          b.file().equals("README.md") && b.section().equals(ReadmeExamples.INSTALL);
      boolean release = matching(b).stream().anyMatch(e -> e.kind() == Kind.RELEASE);
      if (release != inInstall) {
        problems.add(
            b.where()
                + " in section '"
                + b.section()
                + "': "
                + (release ? "RELEASE outside" : "not RELEASE inside")
                + " the README's "
                + ReadmeExamples.INSTALL
                + " section");
      }
      install += inInstall ? 1 : 0;
    }
    assertThat(problems).isEmpty();
    // The package, the tarball and from source, each its own block for the release test to run.
    assertThat(install).as("blocks in the README's Install section").isEqualTo(3);
  }

  @Test
  void everyBlockHasOneEntry() throws IOException {
    List<Block> blocks = ReadmeBlocks.all(ROOT);
    List<String> problems = new ArrayList<>();
    for (Block b : blocks) {
      List<Entry> matching = matching(b);
      if (matching.size() != 1) {
        problems.add(
            b.where()
                + ": "
                + matching.size()
                + " entries match (expected one in ReadmeExamples): "
                + b.lines().get(0));
      }
    }
    for (Entry e : ReadmeExamples.ENTRIES) {
      if (blocks.stream().noneMatch(b -> b.text().contains(e.marker()))) {
        problems.add(
            "ReadmeExamples entry '" + e.marker() + "' matches no block of the README or docs/");
      }
    }
    assertThat(problems).isEmpty();
  }

  @TestFactory
  List<DynamicTest> everyExampleRunsAsWritten() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (Block b : ReadmeBlocks.all(ROOT)) {
      List<Entry> matching = matching(b);
      Kind kind = matching.size() == 1 ? matching.get(0).kind() : Kind.NOT_RUN;
      if (kind != Kind.NOT_RUN && kind != Kind.RELEASE) {
        Entry e = matching.get(0);
        tests.add(DynamicTest.dynamicTest(b.where() + " " + b.lines().get(0), () -> run(b, e)));
      }
    }
    return tests;
  }

  private static void run(Block block, Entry entry) throws Exception {
    Files.createDirectories(dir.resolve("o"));
    String script = ReadmeScript.of(block, entry);
    String name = block.file().replace('/', '-').replaceAll("\\.md$", "");
    Path file = dir.resolve("o/block-" + name + "-" + block.firstLine() + ".sh");
    Files.writeString(file, script);
    ScratchBash.Result result = bash(". " + file, 300);
    assertThat(result.code()).as("%s:%n%s", block.where(), result.output()).isZero();
  }

  private static List<Entry> matching(Block b) {
    return ReadmeExamples.ENTRIES.stream().filter(e -> b.text().contains(e.marker())).toList();
  }

  /** Runs {@code script} in bash in the scratch directory; every process it left is stopped. */
  private static ScratchBash.Result bash(String script, int seconds) throws Exception {
    return ScratchBash.run(dir, env, script, seconds);
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = ReadmeExamplesTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }
}
