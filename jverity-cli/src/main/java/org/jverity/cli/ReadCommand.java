package org.jverity.cli;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import java.util.ArrayList;
import java.util.List;
import org.jverity.fec.FecRepairer;
import org.jverity.io.BlockDevice;
import org.jverity.io.BlockDevices;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.CorruptionListener;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.IoClass;
import org.jverity.verify.VerificationScheduler;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "read",
    description = "Write verified bytes of DATA to stdout (or --output). Every data block is checked"
        + " against the hash tree and ROOT_HASH before any of its bytes is written; stops at the first"
        + " block that does not verify, naming it.")
final class ReadCommand implements Callable<Integer> {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  private static final int PIECE = 1 << 20; // bytes read and written at a time

  @Mixin ImageArguments image;

  @Mixin VerityOptions options;

  @Mixin FecOptions fec;

  @Mixin RootHashSignatureOptions signature;

  @Option(names = "--offset", paramLabel = "BYTES", converter = ByteSize.class,
      description = "First byte to read (default 0). Sizes take K, M, G, T (or KiB ... TiB): powers of 1024.")
  long offset;

  @Option(names = "--length", paramLabel = "BYTES", converter = ByteSize.class,
      description = "Bytes to read (default: to the end of the data).")
  Long length;

  @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write to FILE instead of stdout.")
  Path output;

  @Option(names = "--cache-size", paramLabel = "BYTES", converter = ByteSize.class,
      description = "Hash block cache size (default 64M).")
  long cacheSize = HashBlockCache.DEFAULT_CAPACITY_BYTES;

  @Option(names = "--ignore-corruption", description = "Report corrupted blocks but write their data anyway.")
  boolean ignoreCorruption;

  @Option(names = "--ignore-zero-blocks", description = "Blocks whose digest is that of a zero block read as zeros.")
  boolean ignoreZeroBlocks;

  @Option(names = "--check-at-most-once", description = "Verify each data block only the first time it is read.")
  boolean checkAtMostOnce;

  @Override
  public Integer call() throws IOException, org.jverity.sig.InvalidSignatureException {
    Checks.requireCacheSize(cacheSize);
    signature.checkGiven();
    String rootText = image.check("read");
    Path data = image.data;
    Path hash = image.hash;
    // Mapped where possible: a verified read then costs a copy, not a system call, per request.
    try (BlockDevice dataDev = BlockDevices.openRead(data);
        BlockDevice hashDev = BlockDevices.openRead(hash)) {
      TrustedRoot trusted = TrustedRoot.resolve(options, data, hashDev, rootText);
      signature.check(trusted.rootHash()); // before any byte is written
      VerityParams p = trusted.params();
      var err = spec.commandLine().getErr();
      ReadDiagnosis diagnosis = new ReadDiagnosis(p, dataDev, hashDev, trusted.rootHash());
      ReaderOptions ro = ReaderOptions.DEFAULTS
          .withMode(ignoreCorruption ? CorruptionMode.IGNORE : CorruptionMode.EIO)
          .withIgnoreZeroBlocks(ignoreZeroBlocks).withCheckAtMostOnce(checkAtMostOnce)
          .withListener(ignoreCorruption ? diagnosis.ignoring(err) : CorruptionListener.NONE);
      List<AutoCloseable> fecDevices = new ArrayList<>();
      if (fec.given()) {
        FecRepairer repairer = fec.repairer(p, dataDev, hashDev, hash, fecDevices);
        java.util.Set<String> logged = java.util.concurrent.ConcurrentHashMap.newKeySet();
        ro = ro.withRepairer((area, block, size, check) -> {
          byte[] fixed = repairer.repair(area, block, size, check);
          if (fixed != null && logged.add((area == org.jverity.tree.Area.DATA ? "d" : "h") + block)) {
            // verified against the tree: one line, as the kernel logs a correction (once per block,
            // though pieces read at once may each correct a shared hash block)
            err.println("jverity: " + (area == org.jverity.tree.Area.DATA ? "data" : "hash") + " block " + block
                + " corrected with FEC");
            err.flush();
          }
          return fixed;
        });
      }
      VerifiedReader reader = VerifiedReader.open(p, dataDev, hashDev, trusted.rootHash(),
          new HashBlockCache(cacheSize), ro);
      long end = length == null ? reader.size() : offset + length;
      if (offset < 0 || (length != null && length < 0) || end > reader.size() || end < offset) {
        throw new VerityParameterException("range " + offset + "+" + (end - offset) + ": outside the data ("
            + reader.size() + " bytes)");
      }
      try (OutputStream out = open();
          VerificationScheduler scheduler = new VerificationScheduler(reader)) {
        copy(scheduler, offset, end, out);
      } catch (CorruptBlockException e) {
        throw diagnosis.explain(e);
      }
      diagnosis.printUnnamed(err);
    }
    return ExitCode.OK;
  }

  private OutputStream open() throws IOException {
    return new BufferedOutputStream(output == null
        ? new FileOutputStream(FileDescriptor.out) : Files.newOutputStream(output), PIECE);
  }

  /**
   * Copies verified bytes in pieces ending on block boundaries. When a piece fails at a block, the
   * bytes before that block are verified (the scheduler reports the lowest failure and waits for
   * every piece), so they are written before the error is reported.
   */
  private static void copy(VerificationScheduler scheduler, long from, long end, OutputStream out)
      throws IOException {
    int bs = scheduler.reader().layout().dataBlockSize();
    byte[] buf = new byte[PIECE];
    long pos = from;
    while (pos < end) {
      long pieceEnd = Math.min(end, (pos / bs) * bs + PIECE); // block-aligned end, > pos
      int n = (int) (pieceEnd - pos);
      try {
        scheduler.read(pos, buf, 0, n, IoClass.BEST_EFFORT); // hashed on every core
      } catch (CorruptBlockException e) {
        if (e.dataBlock() >= 0) {
          long good = Math.max(pos, e.dataBlock() * bs) - pos; // verified bytes before the failed block
          out.write(buf, 0, (int) good);
        }
        throw e;
      }
      out.write(buf, 0, n);
      pos = pieceEnd;
    }
  }
}
