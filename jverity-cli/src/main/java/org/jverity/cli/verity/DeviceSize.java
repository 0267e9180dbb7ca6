package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The size of a data or hash device in bytes, for regular files and block devices alike. {@code
 * Files.size} reads the inode and says 0 for {@code /dev/loop0}; an open channel asks the device.
 */
final class DeviceSize {
  private DeviceSize() {}

  static long of(Path p) throws IOException {
    try (FileChannel c = FileChannel.open(p, StandardOpenOption.READ)) {
      return c.size();
    }
  }
}
