package org.jverity.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class ToolTest {
  private static final Tool BASH = Tool.of("bash");

  @Test
  @Timeout(60)
  void aChildThatFillsItsStderrPipeBeforeWritingStdoutDoesNotHang() {
    // 1 MiB to stderr first: a runner reading stdout to its end first would wait for ever
    ToolResult r = BASH.check("-c", "head -c 1048576 /dev/zero | tr '\\0' e >&2; echo out");
    assertThat(r.stderr()).hasSize(1 << 20);
    assertThat(r.out()).isEqualTo("out\n");
  }

  @Test
  void aChildPastItsTimeoutIsKilledAndFailsTheTest() {
    assertThatThrownBy(
            () -> BASH.timeout(Duration.ofMillis(300)).run("-c", "echo started; sleep 30"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("timed out after PT0.3S")
        .hasMessageContaining("stdout: started");
  }

  @Test
  void theExitStatusIsKeptAndOkFailsShowingBothStreams() {
    ToolResult r = BASH.run("-c", "echo to-out; echo to-err >&2; exit 3");
    assertThat(r.exit()).isEqualTo(3);
    assertThatThrownBy(r::ok)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("exit 3")
        .hasMessageContaining("to-out")
        .hasMessageContaining("to-err");
  }

  @Test
  void inputDirectoryAndEnvironmentReachTheChild(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("here"), "x");
    ToolResult r =
        BASH.in(dir)
            .env("KIT_TEST", "42")
            .input("from stdin".getBytes(StandardCharsets.UTF_8))
            .check("-c", "cat; echo; echo $KIT_TEST; ls");
    assertThat(r.out()).isEqualTo("from stdin\n42\nhere\n");
  }

  @Test
  void withoutInputTheChildReadsNothing() {
    assertThat(BASH.check("-c", "wc -c").out().strip()).isEqualTo("0");
  }

  @Test
  void childrenFindTheSystemDirectoriesFirst() {
    assertThat(BASH.check("-c", "echo $PATH").out()).startsWith("/usr/bin:/usr/sbin:/bin:/sbin:");
  }

  @Test
  void aToolIsFoundOnPathOrInSbinAndItsPackageComesFromTheTable() {
    Tool veritysetup = Tool.of("veritysetup");
    assertThat(veritysetup.debianPackage()).isEqualTo("cryptsetup-bin");
    assertThat(veritysetup.path()).isAbsolute().isExecutable();
    assertThat(Tool.of("nbdsh").debianPackage()).isEqualTo("python3-libnbd");
  }

  @Test
  void aMissingToolFailsTheTestNamingItsPackage(@TempDir Path empty) {
    assertThatThrownBy(() -> Tool.of("veritysetup").findIn(List.of(empty.toString())))
        .isInstanceOf(AssertionError.class)
        .hasMessage(
            "veritysetup is not installed (searched "
                + empty
                + "): install the Debian package"
                + " cryptsetup-bin (apt-get install cryptsetup-bin; bin/test does this when run as root)");
  }

  @Test
  void aToolMissingFromTheTableIsRefused() {
    assertThatThrownBy(() -> Tool.of("no-such-tool"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no-such-tool is not in bin/tools.tsv: add it with its Debian package");
  }
}
