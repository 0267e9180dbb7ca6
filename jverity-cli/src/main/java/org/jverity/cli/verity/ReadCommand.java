package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.Map;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.DistinctFiles;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.command.Stdout;
import org.jverity.cli.remote.RemoteArguments;
import org.jverity.cli.remote.RemoteDevices;
import org.jverity.cli.syntax.ByteSize;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.term.ProgressBar;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.image.CorrectionReporter;
import org.jverity.image.DeviceSource;
import org.jverity.image.Locations;
import org.jverity.image.TrustedRoot;
import org.jverity.image.VerifiedImage;
import org.jverity.image.VerityImage;
import org.jverity.io.AtomicOutput;
import org.jverity.tree.Area;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.CorruptionListener;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerifiedReader;

/**
 * {@code jverity read}: a range of a dm-verity (or AVB) image's data, every block verified against
 * the root hash before any of it is written, the read {@code veritysetup open} gives through the
 * kernel. Stops at the first block that does not verify, naming it.
 */
public final class ReadCommand implements Command {
  private static final int PIECE = 1 << 20; // bytes read and written at a time

  final ImageArguments image = new ImageArguments();
  final VerityOptions options = new VerityOptions();
  final FecOptions fec = new FecOptions();
  final RootHashSignatureOptions signature = new RootHashSignatureOptions();
  final RemoteArguments remote = new RemoteArguments();
  final AvbOptions avb = new AvbOptions();
  long offset;
  Long length;
  Path output;
  long cacheSize = HashBlockCache.DEFAULT_CAPACITY_BYTES;
  boolean ignoreCorruption;
  boolean ignoreZeroBlocks;
  boolean checkAtMostOnce;
  boolean json;

  public static final Syntax<ReadCommand> SYNTAX =
      Syntax.command(
              "read",
              "Write verified bytes of DATA to stdout (or --output). Every data block is checked"
                  + " against the hash tree and ROOT_HASH before any of its bytes is written; stops at the first"
                  + " block that does not verify, naming it. On stdout the verified bytes before that block are"
                  + " written; --output FILE is written only when the whole range verified (through a temporary file"
                  + " beside it, renamed over it): a read that fails leaves FILE as it was, or absent.",
              ReadCommand::new)
          .include(ImageArguments.OR_AVB, c -> c.image)
          .include(VerityOptions.CHECK, c -> c.options)
          .include(FecOptions.SYNTAX, c -> c.fec)
          .include(RootHashSignatureOptions.SYNTAX, c -> c.signature)
          .include(RemoteArguments.SYNTAX, c -> c.remote)
          .include(AvbOptions.SYNTAX, c -> c.avb)
          .option(
              "--offset",
              "BYTES",
              "First byte to read (default 0). Sizes take K, M, G, T (or KiB ... TiB): powers of 1024.",
              (c, v) -> c.offset = ByteSize.parse(v))
          .option(
              "--length",
              "BYTES",
              "Bytes to read (default: to the end of the data).",
              (c, v) -> c.length = ByteSize.parse(v))
          .option(
              "-o, --output",
              "FILE",
              "Write to FILE instead of stdout (not one of the inputs: refused, exit 3).",
              (c, v) -> c.output = OutputFile.parse(v))
          .option(
              "--cache-size",
              "BYTES",
              "Hash block cache size (default "
                  + (HashBlockCache.DEFAULT_CAPACITY_BYTES >> 20)
                  + "M).",
              (c, v) -> c.cacheSize = ByteSize.parse(v))
          .flag(
              "--ignore-corruption",
              "Report corrupted blocks but write their data anyway.",
              c -> c.ignoreCorruption = true)
          .flag(
              "--ignore-zero-blocks",
              "Blocks whose digest is that of a zero block read as zeros.",
              c -> c.ignoreZeroBlocks = true)
          .flag(
              "--check-at-most-once",
              "Verify each data block only the first time it is read.",
              c -> c.checkAtMostOnce = true)
          .flag(
              "--json",
              "With -o: print a JSON summary on stdout (what was written, corruptions, FEC repairs)."
                  + " Needs -o: stdout carries the data otherwise.",
              c -> c.json = true)
          .example(
              "Copy data.img's first mebibyte to first.img, every block verified before any of it is written:",
              "jverity read data.img data.hash --root-hash-file root.hex --length 1M -o first.img");

  @Override
  public int run(Io io) throws IOException, GeneralSecurityException {
    Checks.requireCacheSize(cacheSize);
    if (json && output == null) {
      throw new CliException(
          ExitCode.USAGE, "--json needs -o FILE: without it stdout carries the data");
    }
    ImageRoot root = image.root("read", options, fec, signature, avb, io.given());
    String data = root.data();
    String hash = root.hash();
    new DistinctFiles() // a URL is no file of this machine: never an output's
        .input("data file", Locations.file(data))
        .input("hash file", Locations.file(hash))
        .input("AVB key", avb.keyFile())
        .input("FEC file", Locations.file(fec.device))
        .input("root hash file", image.rootHashFile)
        .input("signature", signature.signature)
        .inputs("trusted certificate", signature.trusted)
        .outputOrStdout("--output", output)
        .check();
    // Local files read in pieces of a mebibyte with pread, not mapped (DeviceSource.LOCAL_STREAMED
    // says why); URLs through a RemoteSource.
    DeviceSource source = remote.source(DeviceSource.LOCAL_STREAMED, data, hash, fec.device);
    try {
      return read(io, source, root);
    } finally {
      RemoteArguments.close(source); // after the devices
    }
  }

  private int read(Io io, DeviceSource source, ImageRoot root)
      throws IOException, GeneralSecurityException {
    String data = root.data();
    String hash = root.hash();
    // the root is checked before any byte is written (an AVB image's vbmeta before anything else is
    // read), and long before -o exists
    try (ImageRoot.Opened image = root.open(source, io.err())) {
      VerityImage opened = image.image();
      TrustedRoot trusted = opened.trusted();
      VerityParams p = trusted.params();
      var err = io.err();
      ReadDiagnosis diagnosis = new ReadDiagnosis(opened);
      ReaderOptions ro =
          ReaderOptions.DEFAULTS
              .withMode(ignoreCorruption ? CorruptionMode.IGNORE : CorruptionMode.EIO)
              .withIgnoreZeroBlocks(ignoreZeroBlocks)
              .withCheckAtMostOnce(checkAtMostOnce)
              .withListener(ignoreCorruption ? diagnosis.ignoring(err) : CorruptionListener.NONE);
      // verified against the tree: one line, as the kernel logs a correction (once per block,
      // though pieces read at once may each correct a shared hash block)
      ro =
          ro.withRepairer(
              VerityImage.decorated(
                  opened.fec(image.fec()),
                  r ->
                      CorrectionReporter.oncePerBlock(
                          r,
                          (area, block) -> {
                            err.println(
                                "jverity: "
                                    + (area == Area.DATA ? "data" : "hash")
                                    + " block "
                                    + block
                                    + " corrected with FEC");
                            err.flush();
                          })));
      try (VerifiedImage verified =
          opened.reader(new HashBlockCache(cacheSize), ro)) { // owns the devices from here
        VerifiedReader reader = verified.reader();
        long size = reader.size();
        if (offset < 0 || offset > size) { // said per option: offset + length may overflow
          throw new VerityParameterException(
              "--offset: " + offset + " (expected: at most the data's size, " + size + " bytes)");
        }
        if (length != null && (length < 0 || length > size - offset)) {
          throw new VerityParameterException(
              "--length: "
                  + length
                  + " (expected: at most "
                  + (size - offset)
                  + ", the bytes from --offset "
                  + offset
                  + " to the end of the data)");
        }
        long end = length == null ? size : offset + length;
        // Not on stdout's terminal: the data would draw over it. A quick read draws nothing anyway.
        boolean barAllowed = output != null || ProgressBar.terminalOf(1) == null;
        // --output appears only once the whole range verified: a failed read leaves it as it was.
        try (AtomicOutput target = output == null ? null : AtomicOutput.to(output);
            WritableByteChannel file = target == null ? null : target.writer();
            ProgressBar bar =
                barAllowed
                    ? ProgressBar.start("read", end - offset, System.err)
                    : ProgressBar.hidden("read", end - offset, System.err);
            VerifiedCopy copy =
                new VerifiedCopy(
                    verified.scheduler(), file != null ? file : Stdout.channel(), bar)) {
          copy.copy(offset, end);
          if (target != null) {
            target.commit();
          }
          bar.finish();
        } catch (CorruptBlockException e) {
          throw diagnosis.explain(e);
        }
        diagnosis.printUnnamed(err);
        if (json) {
          Map<String, Object> summary =
              ReadSummary.of(output, offset, end - offset, trusted, reader);
          if (source != DeviceSource.LOCAL_STREAMED) {
            summary.put(
                "remote",
                RemoteDevices.json(
                    source,
                    List.of(
                        new RemoteDevices.Opened("data", data, opened.data()),
                        new RemoteDevices.Opened("hash", hash, opened.hash()))));
          }
          io.result(summary);
        }
      }
    }
    return ExitCode.OK;
  }
}
