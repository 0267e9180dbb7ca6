package org.jverity.avb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.jverity.testkit.AvbTestKeys;

/**
 * A signing helper that never ends (a token waiting for a touch): an interrupt ends the signing and
 * the helper with it, in both protocols, and the helper's file is removed.
 */
class HelperSignerTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "with files: {0}")
  @ValueSource(booleans = {false, true})
  void anInterruptStopsTheHelperAndTheSigning(boolean withFiles) throws Exception {
    Path pid = dir.resolve("helper.pid");
    Path script = dir.resolve("wait.sh");
    // exec: the pid written is the process that waits, the one jverity started
    Files.writeString(
        script,
        "#!/bin/sh\necho $$ > " + pid + ".tmp; mv " + pid + ".tmp " + pid + "\nexec sleep 600\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    AvbSigner signer =
        AvbSigner.withHelper(
            AvbAlgorithm.SHA256_RSA2048,
            AvbTestKeys.path("testkey_rsa2048.pem"),
            new SigningHelper(script, withFiles));
    Set<Path> before = signingFiles();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread t =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    signer.sign(new byte[256]);
                  } catch (Throwable e) {
                    thrown.set(e);
                  }
                });
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!Files.exists(pid) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(pid).as("the helper started").exists();
    ProcessHandle helper =
        ProcessHandle.of(Long.parseLong(Files.readString(pid).strip())).orElseThrow();
    t.interrupt();
    t.join(Duration.ofSeconds(10));
    assertThat(t.isAlive()).as("sign() returned").isFalse();
    assertThat(thrown.get()).isInstanceOf(InterruptedIOException.class);
    helper.onExit().get(10, TimeUnit.SECONDS);
    assertThat(helper.isAlive()).as("the helper was stopped").isFalse();
    assertThat(signingFiles()).as("no signing file left").isSubsetOf(before);
  }

  private static Set<Path> signingFiles() throws IOException {
    try (var files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return files
          .filter(f -> f.getFileName().toString().startsWith("jverity-avb-sign"))
          .collect(Collectors.toSet());
    }
  }

  @Test
  void aHelperNeedsAnRsaAlgorithmAndAKeyThatFits() {
    Path key = AvbTestKeys.path("testkey_rsa4096.pem");
    SigningHelper helper = new SigningHelper(Path.of("/bin/false"), false);
    assertThatThrownBy(() -> AvbSigner.withHelper(AvbAlgorithm.MLDSA65, key, helper))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected: an RSA algorithm");
    assertThatThrownBy(() -> AvbSigner.withHelper(AvbAlgorithm.SHA512_RSA2048, key, helper))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a 4096-bit RSA key (expected: 2048 bits for SHA512_RSA2048)");
  }
}
