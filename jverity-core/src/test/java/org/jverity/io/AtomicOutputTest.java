package org.jverity.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link AtomicOutput}: the named file changes only at commit, all at once; a device is written in
 * place.
 */
class AtomicOutputTest {
  @TempDir Path dir;

  @Test
  void withoutACommitTheFileIsAsItWasAndNoTemporaryRemains() throws Exception {
    Path file = Files.writeString(dir.resolve("f"), "old");
    try (AtomicOutput o = AtomicOutput.to(file)) {
      assertThat(o.path()).isNotEqualTo(file.toRealPath()).hasParent(file.toRealPath().getParent());
      Files.writeString(o.path(), "new, half written");
    }
    assertThat(Files.readString(file)).isEqualTo("old");
    try (var files = Files.list(dir)) {
      assertThat(files).containsExactly(file);
    }
  }

  @Test
  void aCommitReplacesTheFileKeepingItsMode() throws Exception {
    Path file = Files.writeString(dir.resolve("f"), "old");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
    try (AtomicOutput o = AtomicOutput.to(file)) {
      Files.writeString(o.path(), "new");
      assertThat(Files.readString(file)).as("before the commit").isEqualTo("old");
      o.commit();
    }
    assertThat(Files.readString(file)).isEqualTo("new");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-r-----");
  }

  @Test
  void aFileThatDidNotExistAppearsOnlyAtTheCommit() throws Exception {
    Path file = dir.resolve("new");
    try (AtomicOutput o = AtomicOutput.to(file)) {
      Files.writeString(o.path(), "bytes");
      assertThat(file).doesNotExist();
      o.commit();
    }
    assertThat(Files.readString(file)).isEqualTo("bytes");
  }

  @Test
  void aDeviceIsWrittenInPlaceAndNeverDeleted() throws Exception {
    Path devNull = Path.of("/dev/null");
    try (AtomicOutput o = AtomicOutput.to(devNull)) {
      assertThat(o.path()).isEqualTo(devNull);
    }
    assertThat(Files.exists(devNull)).isTrue();
    assertThat(Files.isRegularFile(devNull)).isFalse();
  }
}
