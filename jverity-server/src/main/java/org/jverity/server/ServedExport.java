package org.jverity.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;
import org.jverity.image.CorrectionReporter;
import org.jverity.image.DeviceSource;
import org.jverity.image.TrustedRoot;
import org.jverity.image.VerifiedImage;
import org.jverity.image.VerityImage;
import org.jverity.io.BlockDevice;
import org.jverity.nbd.Export;
import org.jverity.verify.BlockRepairer;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.CorruptionListener;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * One image opened for serving: its devices (mapped), the trusted root, the verified reader over a
 * shared hash block cache and its scheduler on the shared hashing pool. Owns all of them and closes
 * them in {@link #close()}, after the server has stopped. Thread-safe once opened (the reader and
 * scheduler are).
 */
final class ServedExport implements AutoCloseable {
  /** The NBD protocol's longest string, in bytes of UTF-8. */
  static final int MAX_NAME_BYTES = 4096;

  final ExportConfig spec;
  final TrustedRoot trusted;
  final Export export;

  /** Reads of its data or hash file that failed (truncated under the server, I/O errors). */
  final DeviceErrors deviceErrors;

  /**
   * Its remote devices' source (their cache, their counters), which the server's {@link
   * RemoteSources} close after every export; null when every device is local.
   */
  final RemoteExport remote;

  /** The reader, its scheduler and every device they read, owned. */
  private final VerifiedImage verified;

  private ServedExport(
      ExportConfig spec, VerifiedImage verified, DeviceErrors deviceErrors, RemoteExport remote) {
    this.spec = spec;
    this.deviceErrors = deviceErrors;
    this.remote = remote;
    this.trusted = verified.trusted();
    this.verified = verified;
    this.export = new Export(spec.name(), spec.description(), verified.scheduler(), spec.ioClass());
  }

  /**
   * Opens {@code spec}'s image through {@code opener} (files, parameters, root hash, its
   * signature), lets the opener refuse an image that could serve nothing, and opens the verified
   * reader; a remote location through {@code remotes} (null when no export has one). Corruption is
   * logged on {@code log}; {@code failedClosed} is told once when RESTART or PANIC stops the
   * reader.
   */
  static ServedExport open(
      ExportConfig spec,
      ExportOpener opener,
      HashBlockCache cache,
      ServerLog log,
      BiConsumer<CorruptionMode, CorruptBlockException> failedClosed,
      RemoteSources remotes)
      throws IOException {
    int nameBytes = spec.name().getBytes(StandardCharsets.UTF_8).length;
    if (nameBytes > MAX_NAME_BYTES) {
      throw new ServerException(
          ServerException.Reason.INVALID_VALUE,
          "export name: "
              + nameBytes
              + " bytes (expected: at most "
              + MAX_NAME_BYTES
              + ", the NBD protocol's limit)");
    }
    RemoteExport remote = spec.anyRemote() ? remotes.of(spec, log) : null;
    return open(spec, opener, cache, log, failedClosed, remote);
  }

  private static ServedExport open(
      ExportConfig spec,
      ExportOpener opener,
      HashBlockCache cache,
      ServerLog log,
      BiConsumer<CorruptionMode, CorruptBlockException> failedClosed,
      RemoteExport remote)
      throws IOException {
    DeviceSource source = remote == null ? DeviceSource.LOCAL : remote.source();
    // closes the devices unless handed to the reader
    try (VerityImage image = opener.open(spec, source)) {
      ReaderOptions options =
          ReaderOptions.DEFAULTS
              .withMode(spec.mode())
              .withErrorAsCorruption(spec.errorAsCorruption())
              .withIgnoreZeroBlocks(spec.ignoreZeroBlocks())
              .withCheckAtMostOnce(spec.checkAtMostOnce())
              .withListener(
                  new CorruptionListener() {
                    @Override
                    public void corrupted(CorruptBlockException e) {
                      log.corrupted(spec.name(), e, spec.mode() == CorruptionMode.IGNORE);
                    }

                    @Override
                    public void failedClosed(CorruptionMode mode, CorruptBlockException cause) {
                      log.failedClosed(spec.name(), mode, cause);
                      failedClosed.accept(mode, cause);
                    }
                  });
      // What serves reads through these: a read that fails (a file truncated while served) is
      // logged and counted. The checks before serving read the files as they are, and fail in one
      // line.
      DeviceErrors errors = new DeviceErrors(spec.name(), log);
      BlockDevice servedData = errors.watch(image.data(), spec.data(), "data");
      BlockDevice servedHash = errors.watch(image.hash(), spec.hash(), "hash");
      BlockRepairer fec = image.fec(spec.fec(), servedData, servedHash);
      // every correction, as the server has always logged them
      options =
          options.withRepairer(
              VerityImage.decorated(
                  fec,
                  r ->
                      CorrectionReporter.everyTime(
                          r, (area, block) -> log.corrected(spec.name(), area, block))));
      // before the server listens: an export that could serve nothing refuses the server
      opener.checkServable(spec, image, fec, log);
      VerifiedImage verified = image.reader(cache, options, servedData, servedHash);
      return new ServedExport(spec, verified, errors, remote);
    }
  }

  VerifiedReader reader() {
    return verified.reader();
  }

  /**
   * Waits for reads in flight, then closes the reader and the devices. Once: {@code jverity close}
   * closes an export before the server's end does.
   */
  @Override
  public void close() {
    verified.close(); // a remote source is the server's to close, after every export
  }
}
