package org.jverity.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.io.AtomicOutput.Option;

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

  @Test
  void keepContentStartsFromTheFileAndOwnerOnlyMakesANewOne0600() throws Exception {
    Path file = Files.writeString(dir.resolve("h"), "0123456789");
    try (AtomicOutput o = AtomicOutput.to(file, Option.KEEP_CONTENT, Option.OWNER_ONLY)) {
      o.device().writeFully(2, ByteBuffer.wrap("ab".getBytes(StandardCharsets.US_ASCII)));
      o.commit();
    }
    assertThat(Files.readString(file)).isEqualTo("01ab456789");
    Path fresh = dir.resolve("fresh");
    AtomicOutput.write(fresh, new byte[] {1}, Option.OWNER_ONLY);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh)))
        .isEqualTo("rw-------");
  }

  @Test
  void aTemporaryOfAnEndedProcessIsRemovedByTheNextOutputAndNoOtherIs() throws Exception {
    Path file = dir.resolve("out");
    TemporaryName mine = TemporaryName.fresh("out");
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    Path dead = stamped(new TemporaryName("out", mine.system(), ended.pid(), 1, 1));
    Path reused = stamped(new TemporaryName("out", mine.system(), mine.pid(), mine.start() + 1, 2));
    Path live = stamped(new TemporaryName("out", mine.system(), mine.pid(), mine.start(), 3));
    Path elsewhere = stamped(new TemporaryName("out", "0badc0de", ended.pid(), 1, 4));
    Path another = stamped(new TemporaryName("other", mine.system(), ended.pid(), 1, 5));
    Path older = Files.writeString(dir.resolve(".out.5eed.jverity-tmp"), "x");
    Path foreign = stamped(new TemporaryName("out", mine.system(), ended.pid(), 1, 6));
    Files.setAttribute(foreign, "unix:uid", 4242);
    AtomicOutput.write(file, new byte[] {1});
    assertThat(dead).as("its process ended").doesNotExist();
    assertThat(reused).as("its pid now another process's").doesNotExist();
    assertThat(live).as("a live process's").exists();
    assertThat(elsewhere).as("another boot's or container's").exists();
    assertThat(another).as("another output's").exists();
    assertThat(older).as("unstamped: an older jverity's").exists();
    assertThat(foreign).as("another user's").exists();
  }

  @Test
  void aTemporaryNameSaysWhoseItIs() {
    TemporaryName t = TemporaryName.fresh("a.b-1-2");
    assertThat(TemporaryName.parse("a.b-1-2", t.fileName())).contains(t);
    assertThat(TemporaryName.parse("a", t.fileName())).isEmpty();
    assertThat(t.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(t.abandoned()).isFalse();
  }

  private Path stamped(TemporaryName t) throws IOException {
    return Files.writeString(dir.resolve(t.fileName()), "left");
  }
}
