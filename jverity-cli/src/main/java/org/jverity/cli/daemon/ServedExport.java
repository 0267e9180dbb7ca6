package org.jverity.cli.daemon;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.jverity.fec.FecRepairer;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.nbd.Export;
import org.jverity.server.DeviceErrors;
import org.jverity.server.ServerLog;
import org.jverity.sig.InvalidSignatureException;
import org.jverity.verify.BlockRepairer;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.CorruptionListener;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.HashingPool;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerificationScheduler;
import org.jverity.verify.VerifiedReader;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.verity.FecOptions;
import org.jverity.cli.verity.TrustedRoot;

/**
 * One image opened for serving: its devices (mapped), the trusted root, the verified reader over a
 * shared hash block cache and its scheduler on the shared hashing pool. Owns all of them and closes
 * them in {@link #close()}, after the server has stopped. Thread-safe once opened (the reader and
 * scheduler are).
 */
final class ServedExport implements AutoCloseable {
  /** The NBD protocol's longest string, in bytes of UTF-8. */
  static final int MAX_NAME_BYTES = 4096;

  final ExportSpec spec;
  final TrustedRoot trusted;
  final Export export;
  /** Reads of its data or hash file that failed (truncated under the server, I/O errors). */
  final DeviceErrors deviceErrors;
  private final BlockDevice data;
  private final BlockDevice hash;
  private final VerifiedReader reader;
  private final VerificationScheduler scheduler;
  private final List<AutoCloseable> fecDevices = new ArrayList<>(); // parity devices of its own, or none
  private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

  private ServedExport(ExportSpec spec, TrustedRoot trusted, BlockDevice data, BlockDevice hash,
      VerifiedReader reader, DeviceErrors deviceErrors) {
    this.spec = spec;
    this.deviceErrors = deviceErrors;
    this.trusted = trusted;
    this.data = data;
    this.hash = hash;
    this.reader = reader;
    this.scheduler = new VerificationScheduler(reader, HashingPool.shared());
    this.export = new Export(spec.name(), spec.description(), scheduler, spec.ioClass());
  }

  /**
   * Opens {@code spec}'s image: checks the files, resolves its parameters and root hash (superblock,
   * options or identity), checks the root hash's signature when the spec has one, and opens the
   * verified reader. Corruption is logged on {@code log}; {@code failedClosed} is told once when
   * RESTART or PANIC stops the reader.
   *
   * @throws CliException ({@link ExitCode#SIGNATURE_INVALID}) naming the export, when the root hash
   *     is not signed by a trusted certificate
   */
  static ServedExport open(ExportSpec spec, HashBlockCache cache, ServerLog log,
      BiConsumer<CorruptionMode, CorruptBlockException> failedClosed) throws IOException {
    int nameBytes = spec.name().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (nameBytes > MAX_NAME_BYTES) {
      throw new CliException(ExitCode.INVALID_PARAMETER, "export name: " + nameBytes + " bytes (expected: at most "
          + MAX_NAME_BYTES + ", the NBD protocol's limit)");
    }
    Checks.requireFile(spec.data(), "data");
    Checks.requireFile(spec.hash(), "hash");
    BlockDevice data = BlockDevices.openRead(spec.data());
    BlockDevice hash = null;
    try {
      hash = BlockDevices.openRead(spec.hash());
      TrustedRoot trusted = TrustedRoot.resolve(spec.options(), spec.data(), hash, spec.rootText());
      checkSignature(spec, trusted.rootHash()); // before any block is read or served
      ReaderOptions options = ReaderOptions.DEFAULTS
          .withMode(spec.mode())
          .withIgnoreZeroBlocks(spec.ignoreZeroBlocks())
          .withCheckAtMostOnce(spec.checkAtMostOnce())
          .withListener(new CorruptionListener() {
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
      // logged and counted. The checks before serving read the files as they are, and fail in one line.
      DeviceErrors errors = new DeviceErrors(spec.name(), log);
      BlockDevice servedData = errors.watch(data, spec.data(), "data");
      BlockDevice servedHash = errors.watch(hash, spec.hash(), "hash");
      List<AutoCloseable> fecDevices = new ArrayList<>();
      BlockRepairer fec = BlockRepairer.NONE;
      if (spec.fec() != null) {
        FecRepairer repairer = spec.fec().repairer(trusted.params(), servedData, servedHash, spec.hash(), fecDevices);
        fec = repairer::repair;
        options = options.withRepairer((area, block, size, check) -> {
          byte[] fixed = repairer.repair(area, block, size, check);
          if (fixed != null) {
            log.corrected(spec.name(), area, block);
          }
          return fixed;
        });
      }
      VerifiedReader reader;
      try {
        // before the server listens: an export that could serve nothing refuses the server
        StartupCheck.check(spec.name(), trusted.params(), data, hash, trusted.rootHash(), fec,
            spec.ignoreZeroBlocks(), spec.mode() == CorruptionMode.IGNORE, log);
        reader = VerifiedReader.open(trusted.params(), servedData, servedHash, trusted.rootHash(), cache, options);
      } catch (IOException | RuntimeException e) {
        FecOptions.closeAll(fecDevices);
        throw e;
      }
      ServedExport served = new ServedExport(spec, trusted, data, hash, reader, errors);
      served.fecDevices.addAll(fecDevices);
      return served;
    } catch (IOException | RuntimeException e) {
      closeQuietly(hash);
      closeQuietly(data);
      throw e;
    }
  }

  /** A root hash signed by no trusted certificate refuses the export, and with it the server. */
  private static void checkSignature(ExportSpec spec, byte[] root) throws IOException {
    if (spec.signature() == null) {
      return;
    }
    try {
      spec.signature().check(root);
    } catch (InvalidSignatureException e) {
      throw new CliException(ExitCode.SIGNATURE_INVALID, "export " + ServerLog.display(spec.name()) + ": "
          + e.getMessage());
    }
  }

  VerifiedReader reader() {
    return reader;
  }

  VerificationScheduler scheduler() {
    return scheduler;
  }

  /**
   * Waits for reads in flight, then closes the reader and both devices. Once: {@code jverity close}
   * closes an export before the server's end does.
   */
  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    scheduler.close();
    reader.close();
    closeQuietly(hash);
    closeQuietly(data);
    FecOptions.closeAll(fecDevices);
  }

  private static void closeQuietly(AutoCloseable c) {
    if (c != null) {
      try {
        c.close();
      } catch (Exception e) {
        // nothing was written: nothing to lose
      }
    }
  }
}
