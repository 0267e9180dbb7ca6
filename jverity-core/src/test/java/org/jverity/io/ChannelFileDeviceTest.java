package org.jverity.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import org.jverity.testing.BlockDeviceContract;

/** The FileChannel fallback FileDevice uses where the native calls are not bound. */
class ChannelFileDeviceTest extends BlockDeviceContract {

  @Override
  protected BlockDevice open(byte[] contents) throws IOException {
    return FileDevice.openChannel(file(contents), false);
  }

  @Override
  protected boolean survivesInterrupts() {
    return false;
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
}
