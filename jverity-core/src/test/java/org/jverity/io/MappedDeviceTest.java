package org.jverity.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.jverity.testing.BlockDeviceContract;

class MappedDeviceTest extends BlockDeviceContract {

  @Override
  protected BlockDevice open(byte[] contents) throws IOException {
    return MappedDevice.open(file(contents));
  }

  @Override
  protected boolean supportsTruncation() {
    return true;
  }

  @Override
  protected void truncate(BlockDevice device, long size) throws IOException {
    try (FileChannel c =
        FileChannel.open(((MappedDevice) device).path(), StandardOpenOption.WRITE)) {
      c.truncate(size);
    }
  }

  @Test
  void anEmptyFileHasNoBytes() throws IOException {
    try (MappedDevice d = MappedDevice.open(file(new byte[0]))) {
      assertThat(d.size()).isZero();
      d.readFully(0, ByteBuffer.allocate(0));
      assertThatThrownBy(() -> d.readFully(0, ByteBuffer.allocate(1)))
          .isInstanceOf(EOFException.class);
    }
  }

  @Test
  void theSizeIsFixedWhenItOpens() throws IOException {
    try (MappedDevice d = MappedDevice.open(file(new byte[4096]))) {
      try (FileChannel c = FileChannel.open(d.path(), StandardOpenOption.WRITE)) {
        c.write(ByteBuffer.allocate(4096), 4096);
      }
      assertThat(d.size()).isEqualTo(4096);
    }
  }

  @Test
  void aMissingFileIsNoSuchFile() {
    assertThatThrownBy(() -> MappedDevice.open(tmp.resolve("missing")))
        .isInstanceOf(NoSuchFileException.class);
  }
}
