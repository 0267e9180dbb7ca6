package org.jverity.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.jverity.posix.Posix;
import org.jverity.testing.BlockDeviceContract;
import org.jverity.testing.Images;

class FileDeviceTest extends BlockDeviceContract {

  @Override
  protected BlockDevice open(byte[] contents) throws IOException {
    return FileDevice.openRead(file(contents));
  }

  @Override
  protected boolean supportsTruncation() {
    return true;
  }

  @Override
  protected void truncate(BlockDevice device, long size) throws IOException {
    try (FileChannel c = FileChannel.open(((FileDevice) device).path(), StandardOpenOption.WRITE)) {
      c.truncate(size);
    }
  }

  @Test
  void usesTheNativeCallsOnThisMachine() {
    assertThat(Posix.get()).as("POSIX calls bound (Linux or macOS, 64-bit)").isPresent();
  }

  @Test
  void openWriteCreatesAMissingFileWithMode0644AtMost() throws IOException {
    Path p = tmp.resolve("new");
    try (FileDevice d = FileDevice.openWrite(p)) {
      assertThat(d.size()).isZero();
    }
    assertThat(Files.getPosixFilePermissions(p))
        .contains(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE)
        .doesNotContain(
            PosixFilePermission.OWNER_EXECUTE,
            PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_EXECUTE);
  }

  @Test
  void openWriteNeverTruncatesAndWritesEveryKindOfSource() throws IOException {
    byte[] before = Images.random(20, 10_000);
    Path p = file(before);
    byte[] expected = before.clone();
    try (FileDevice d = FileDevice.openWrite(p)) {
      assertThat(d.size()).isEqualTo(10_000);
      byte[] a = Images.random(21, 3000);
      d.writeFully(100, ByteBuffer.wrap(a));
      System.arraycopy(a, 0, expected, 100, a.length);
      ByteBuffer direct = ByteBuffer.allocateDirect(5000).put(Images.random(22, 5000)).flip();
      direct.get(0, expected, 4000, 5000);
      d.writeFully(4000, direct);
      assertThat(direct.hasRemaining()).isFalse();
      ByteBuffer readOnly = ByteBuffer.wrap(Images.random(23, 2000)).asReadOnlyBuffer();
      byte[] grown = Arrays.copyOf(expected, 11_000);
      readOnly.get(0, grown, 9000, 2000);
      d.writeFully(9000, readOnly);
      d.flush();
      assertThat(d.size()).isEqualTo(11_000);
      byte[] back = new byte[11_000];
      d.readFully(0, back, 0, back.length);
      assertThat(back).isEqualTo(grown);
    }
    assertThat(Files.readAllBytes(p)).hasSize(11_000);
  }

  @Test
  void aMissingFileIsNoSuchFile() {
    assertThatThrownBy(() -> FileDevice.openRead(tmp.resolve("missing")))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("missing");
  }

  @Test
  void aReadOnlyDestinationIsRefused() throws IOException {
    try (FileDevice d = FileDevice.openRead(file(new byte[100]))) {
      assertThatThrownBy(() -> d.readFully(0, ByteBuffer.allocate(10).asReadOnlyBuffer()))
          .isInstanceOf(ReadOnlyBufferException.class);
    }
  }

  @Test
  void closedMessageSaysSo() throws IOException {
    FileDevice d = FileDevice.openRead(file(new byte[100]));
    d.close();
    assertThatThrownBy(d::size)
        .isInstanceOf(IOException.class)
        .hasMessage(d.path() + ": device is closed");
  }
}
