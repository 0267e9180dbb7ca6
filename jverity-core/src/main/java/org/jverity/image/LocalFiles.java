package org.jverity.image;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;

/** {@link DeviceSource#LOCAL}: locations are paths of files or block devices. */
final class LocalFiles implements DeviceSource {
  @Override
  public BlockDevice open(String location) throws IOException {
    return BlockDevices.openRead(Path.of(location));
  }

  /**
   * One file under two names, or two device nodes of one block device (e.g. a copy made with
   * mknod).
   */
  @Override
  public boolean same(String a, String b) throws IOException {
    Path pa = Path.of(a);
    Path pb = Path.of(b);
    if (!Files.exists(pa) || !Files.exists(pb)) {
      return pa.toAbsolutePath().normalize().equals(pb.toAbsolutePath().normalize());
    }
    return Files.isSameFile(pa, pb)
        || BlockDevices.isBlockDevice(pa)
            && BlockDevices.isBlockDevice(pb)
            && Objects.equals(
                Files.getAttribute(pa, "unix:rdev"), Files.getAttribute(pb, "unix:rdev"));
  }
}
