package org.jverity.server;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jverity.io.BlockDevice;
import org.jverity.io.FileDevice;
import org.jverity.testing.BlockDeviceContract;

/**
 * A served export's {@link WatchedDevice} keeps the core's device contract (review §5.6): watching
 * a file's reads for failures changes none of what a read returns or throws.
 */
class WatchedDeviceContractTest extends BlockDeviceContract {
  private final DeviceErrors errors =
      new DeviceErrors("disk", new ServerLog(new PrintWriter(new StringWriter(), true)));

  @Override
  protected BlockDevice open(byte[] contents) throws IOException {
    Path file = file(contents);
    return new WatchedDevice(FileDevice.openRead(file), file.toString(), "data", errors);
  }

  @Override
  protected boolean supportsTruncation() {
    return true;
  }

  @Override
  protected void truncate(BlockDevice device, long size) throws IOException {
    try (FileChannel c =
        FileChannel.open(Path.of(((WatchedDevice) device).location), StandardOpenOption.WRITE)) {
      c.truncate(size);
    }
  }
}
