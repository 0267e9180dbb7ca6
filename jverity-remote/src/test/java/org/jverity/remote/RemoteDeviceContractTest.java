package org.jverity.remote;

import java.io.IOException;
import org.jverity.io.BlockDevice;

/** A {@link RemoteDevice} keeps the core's device contract. */
class RemoteDeviceContractTest extends RemoteContract {
  @Override
  protected BlockDevice open(byte[] contents) throws IOException {
    return remote(contents);
  }
}
