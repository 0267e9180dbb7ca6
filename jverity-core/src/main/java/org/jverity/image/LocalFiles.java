package org.jverity.image;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.io.SameFile;

/** {@link DeviceSource#LOCAL}: locations are paths of files or block devices. */
final class LocalFiles implements DeviceSource {
  @Override
  public BlockDevice open(String location) throws IOException {
    return BlockDevices.openRead(Path.of(location));
  }

  /** {@link SameFile}'s rule: one file under two names, or two nodes of one block device. */
  @Override
  public boolean same(String a, String b) throws IOException {
    return SameFile.same(Path.of(a), Path.of(b));
  }
}
