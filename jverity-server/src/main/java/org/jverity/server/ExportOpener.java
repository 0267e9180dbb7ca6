package org.jverity.server;

import java.io.IOException;
import org.jverity.image.DeviceSource;
import org.jverity.image.VerityImage;
import org.jverity.verify.BlockRepairer;

/**
 * How the server opens an export's image and decides, before it listens, whether the image can
 * serve anything: the front end's, so that its refusals are phrased and coded as its other
 * commands' are (the command line's are {@code verify}'s lines and exit codes). The server does the
 * rest: readers, the corruption log, FEC corrections, serving.
 */
public interface ExportOpener {
  /**
   * The export's devices opened through {@code source} (local files, or a {@code RemoteSource} when
   * a location is a URL), its root resolved and checked ({@link ExportConfig#rootCheck()}). A
   * failure closes what it opened.
   */
  VerityImage open(ExportConfig export, DeviceSource source) throws IOException;

  /**
   * Refuses, by throwing, an export whose every read would fail (a wrong root hash, a hash file
   * made for other data); may log instead, when the export ignores corruption.
   *
   * @param fec the export's FEC, or {@link BlockRepairer#NONE}
   */
  void checkServable(ExportConfig export, VerityImage image, BlockRepairer fec, ServerLog log)
      throws IOException;
}
