package org.jverity.image;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.io.FileDevice;
import org.jverity.io.SameFile;

/**
 * {@link DeviceSource#LOCAL} and {@link DeviceSource#LOCAL_STREAMED}: locations are paths of files
 * or block devices.
 */
final class LocalFiles implements DeviceSource {
  private final boolean mapped; // else read with pread

  LocalFiles(boolean mapped) {
    this.mapped = mapped;
  }

  @Override
  public BlockDevice open(String location) throws IOException {
    Path path = Path.of(location);
    return mapped ? BlockDevices.openRead(path) : FileDevice.openRead(path);
  }

  /** {@link SameFile}'s rule: one file under two names, or two nodes of one block device. */
  @Override
  public boolean same(String a, String b) throws IOException {
    return SameFile.same(Path.of(a), Path.of(b));
  }
}
