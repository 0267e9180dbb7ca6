package org.jverity.remote;

import java.io.IOException;
import java.nio.file.Path;
import org.jverity.io.BlockDevice;

/** An {@link OpeningDevice}, opening its remote device in the background, keeps the contract. */
class OpeningDeviceContractTest extends RemoteContract {
  @Override
  protected BlockDevice open(byte[] contents) throws IOException {
    Path file = file(contents);
    return new OpeningDevice(location(file), () -> remote(file)); // named as RemoteSource names it
  }
}
