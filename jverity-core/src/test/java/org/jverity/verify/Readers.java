package org.jverity.verify;

import java.io.IOException;
import org.jverity.io.BlockDevice;
import org.jverity.testing.TestImage;

/** Readers over a {@link TestImage}, each with a cache of its own, for the read path's tests. */
final class Readers {
  private Readers() {}

  /**
   * A reader of {@code im} from these devices (the image's, or decorators of them), with a 1 MiB
   * cache.
   */
  static VerifiedReader open(TestImage im, BlockDevice data, BlockDevice hash, ReaderOptions o)
      throws IOException {
    return VerifiedReader.open(im.params(), data, hash, im.root(), new HashBlockCache(1 << 20), o);
  }
}
