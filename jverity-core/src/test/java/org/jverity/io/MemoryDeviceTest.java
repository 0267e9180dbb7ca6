package org.jverity.io;

import org.jverity.testing.BlockDeviceContract;

class MemoryDeviceTest extends BlockDeviceContract {

  @Override
  protected BlockDevice open(byte[] contents) {
    return new MemoryDevice("memory", contents);
  }

  /** Its close frees nothing, and its API stays as it was: reads after close still work. */
  @Override
  protected boolean refusesReadsAfterClose() {
    return false;
  }
}
