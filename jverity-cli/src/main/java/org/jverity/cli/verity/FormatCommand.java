package org.jverity.cli.verity;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.DistinctFiles;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.command.Signing;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.WholeNumber;
import org.jverity.cli.term.ProgressBar;
import org.jverity.fec.FecEncoder;
import org.jverity.fec.FecLayout;
import org.jverity.fec.ReedSolomon;
import org.jverity.format.Hex;
import org.jverity.format.ImageIdentity;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.io.AtomicOutput;
import org.jverity.io.AtomicOutput.Option;
import org.jverity.io.FileDevice;
import org.jverity.io.WritableDevice;
import org.jverity.sig.RootHashSignature;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.TreeBuilder;
import org.jverity.tree.TreeRoot;

/**
 * {@code jverity format}: the hash tree of a data device (and optionally its Reed-Solomon parity)
 * written to a hash device, byte for byte {@code veritysetup format}'s, its output and exit codes
 * too. A hash file is written aside and renamed into place; a device is written in place.
 */
public final class FormatCommand implements Command {
  Path data;
  Path hash;
  final VerityOptions options = new VerityOptions();
  Path rootHashFile;
  Path rootHashSignatureOut;
  Path key;
  Path cert;
  String seed;
  String seedLabel;
  boolean json;
  Integer threads;
  Path fecDevice;
  Long fecOffset;
  Integer fecRoots;

  public static final Syntax<FormatCommand> SYNTAX =
      Syntax.command(
              "format",
              "Calculate and store the hash tree of DATA on HASH, as veritysetup format does.",
              FormatCommand::new)
          .parameter("DATA", "Data image.", (c, v) -> c.data = FileName.parse(v))
          .parameter(
              "HASH",
              "Hash device (created if missing; may be DATA with --hash-offset). A file is written"
                  + " beside HASH and renamed over it once all is written, keeping its bytes outside"
                  + " the hash area: a failed or interrupted format leaves it as it was. DATA itself"
                  + " (--hash-offset, --fec-offset) and block devices are written in place.",
              (c, v) -> c.hash = OutputFile.parse(v))
          .include(VerityOptions.FORMAT, c -> c.options)
          .option(
              "--root-hash-file",
              "FILE",
              "Also write the root hash (hex, no newline) to FILE.",
              (c, v) -> c.rootHashFile = OutputFile.parse(v))
          .option(
              "--root-hash-signature-out",
              "FILE",
              "Also write a detached PKCS#7 signature (DER) of the root hash to FILE, as veritysetup open"
                  + " --root-hash-signature takes it; needs --key and --cert.",
              (c, v) -> c.rootHashSignatureOut = OutputFile.parse(v))
          .option(
              "--key",
              "KEY.pem",
              "Private key signing the root hash (PEM: RSA or EC).",
              (c, v) -> c.key = FileName.parse(v))
          .option(
              "--cert",
              "CERT.pem",
              "The key's X.509 certificate (PEM).",
              (c, v) -> c.cert = FileName.parse(v))
          .option(
              "--seed",
              "STRING",
              "Derive salt and UUID from this secret seed (reproducible builds).",
              (c, v) -> c.seed = v)
          .option(
              "--seed-label",
              "NAME",
              "Label mixed with --seed (default: the data file's name).",
              (c, v) -> c.seedLabel = v)
          .flag("--json", "Print the header and layout as JSON.", c -> c.json = true)
          .option(
              "--threads",
              "N",
              "Hashing threads (default: one per core).",
              (c, v) -> c.threads = WholeNumber.parseInt(v))
          .option(
              "--fec-device",
              "FILE",
              "Also write Reed-Solomon parity (FEC) to FILE (created if missing; may be HASH or DATA with"
                  + " --fec-offset); a file of its own is written beside and renamed, as HASH.",
              (c, v) -> c.fecDevice = OutputFile.parse(v))
          .option(
              "--fec-offset",
              "BYTES",
              "Byte offset of the parity on the FEC device; a multiple of "
                  + VerityParams.SECTOR_SIZE
                  + " (default 0).",
              (c, v) -> c.fecOffset = WholeNumber.parseLong(v))
          .option(
              "--fec-roots",
              "N",
              "Parity bytes per 255-byte codeword, "
                  + ReedSolomon.ROOTS_RANGE
                  + " (default "
                  + ReedSolomon.DEFAULT_ROOTS
                  + ").",
              (c, v) -> c.fecRoots = WholeNumber.parseInt(v))
          .example(
              "Compute the hash tree of data.img into data.hash, as veritysetup format does, and keep the root hash in root.hex:",
              "jverity format data.img data.hash --root-hash-file root.hex")
          .example(
              "The same tree with Reed-Solomon parity in data.fec, from which repair (and the kernel) can correct damaged blocks:",
              "jverity format data.img data.hash --fec-device data.fec --root-hash-file root.hex");

  @Override
  public int run(Io io) throws IOException {
    Checks.requireThreads(threads);
    Checks.requireFile(data, "data");
    Checks.requireOutputDevice(hash, "hash device");
    checkFecOptions();
    if (fecDevice != null) {
      Checks.requireOutputDevice(fecDevice, "FEC device");
    }
    distinctOutputs().check();
    Signing signing = signing();
    VerityParams p =
        ParamsResolver.forFormat(options, data, ParamsResolver.seedBytes(seed), seedLabel);
    TreeBuilder builder = TreeBuilder.of(p);
    if (threads != null) {
      builder = builder.withThreads(threads);
    }
    if (Files.exists(hash) && Files.isSameFile(data, hash)) {
      builder.layout().checkNoOverlapWithData();
    }
    boolean fecOnHash = fecDevice != null && sameFile(fecDevice, hash);
    boolean fecOnData = fecDevice != null && sameFile(fecDevice, data);
    if (fecDevice != null) {
      // The final layout depends on the hash device's size once written; this one checks the
      // parameters and the overlaps before any file is created.
      FecLayout early =
          FecLayout.of(p, roots(), fecOffset(), fecOnHash, builder.layout().hashDeviceSize());
      checkFecOverlaps(p, builder.layout(), early, fecOnHash, fecOnData);
    }
    long dataSize = DeviceSize.of(data); // Files.size says 0 for a block device
    // Checked before the hash file is created, so a refused format leaves nothing behind.
    TreeRoot.requireSize(
        p.dataSize(), TreeRoot.dataBlocks(builder.layout()), data.toString(), dataSize);
    byte[] root;
    FecLayout fec = null;
    // Every output that is a file of its own is written beside it and renamed over it at the end,
    // once all are written: an interrupt, a full disk or any failure leaves each as it was.
    // An existing file's bytes outside what format writes stay, as veritysetup leaves them.
    // The single-file layouts (HASH or the FEC area on DATA) and devices are written in place.
    boolean hashOnData = Files.exists(hash) && Files.isSameFile(data, hash);
    try (AtomicOutput hashOut = hashOnData ? null : outputFile(hash);
        AtomicOutput fecOut =
            fecDevice == null || fecOnHash || fecOnData ? null : outputFile(fecDevice);
        AtomicOutput rootOut =
            rootHashFile == null ? null : AtomicOutput.to(rootHashFile, Option.OWNER_ONLY);
        AtomicOutput signatureOut =
            signing == null ? null : AtomicOutput.to(rootHashSignatureOut, Option.OWNER_ONLY)) {
      // One-shot: FileChannel devices open at once (no native binding to pay); nothing interrupts
      // them.
      try (FileDevice dataDev = FileDevice.openChannel(data, false);
          FileDevice hashDev =
              hashOut == null ? FileDevice.openChannel(hash, true) : hashOut.device()) {
        try (ProgressBar bar = ProgressBar.start("format", builder.workBytes(), System.err)) {
          root = builder.withProgress(bar).build(dataDev, hashDev);
          bar.finish();
        }
        if (fecDevice != null) {
          fec = FecLayout.of(p, roots(), fecOffset(), fecOnHash, hashDev.size());
          FecEncoder encoder = FecEncoder.of(fec);
          if (threads != null) {
            encoder = encoder.withThreads(threads);
          }
          try (FileDevice own =
                  fecOnHash
                      ? null
                      : fecOut == null ? FileDevice.openChannel(fecDevice, true) : fecOut.device();
              ProgressBar bar = ProgressBar.start("fec", encoder.workBytes(), System.err)) {
            WritableDevice out = fecOnHash ? hashDev : own;
            encoder.withProgress(bar).encode(dataDev, hashDev, out);
            bar.finish();
          }
        }
      }
      String rootHex = Hex.format(root);
      if (rootOut != null) {
        rootOut.writer().write(ByteBuffer.wrap(rootHex.getBytes(StandardCharsets.US_ASCII)));
      }
      if (signatureOut != null) {
        byte[] sig = signing.sign(s -> RootHashSignature.sign(rootHex, s.key(), s.cert()));
        WritableByteChannel w = signatureOut.writer();
        for (ByteBuffer b = ByteBuffer.wrap(sig); b.hasRemaining(); ) {
          w.write(b);
        }
      }
      for (AtomicOutput o : new AtomicOutput[] {hashOut, fecOut, rootOut, signatureOut}) {
        if (o != null) {
          o.commit();
        }
      }
    }
    Header.Fec fecInfo = fec == null ? null : new Header.Fec(fecDevice.toString(), fec, fecOnHash);
    if (json) {
      io.result(Header.json(data.toString(), hash.toString(), p, root, fecInfo));
      return ExitCode.OK;
    }
    io.out()
        .print(
            Header.text(
                    hash.toString(),
                    p,
                    root,
                    fecInfo,
                    options.hash != null ? options.hash : p.hashAlgorithm().kernelName())
                + Header.identityLine(ImageIdentity.of(p, root)));
    return ExitCode.OK;
  }

  /**
   * A hash or FEC file: starts as a copy of the existing file (a format writes only its area), or
   * empty and readable by its owner only, as veritysetup creates it (mode 0600).
   */
  private static AtomicOutput outputFile(Path file) throws IOException {
    return AtomicOutput.to(file, Option.KEEP_CONTENT, Option.OWNER_ONLY);
  }

  /** The signing key and certificate, loaded before any file is written; null when not signing. */
  private Signing signing() throws IOException {
    if (rootHashSignatureOut == null) {
      if (key != null || cert != null) {
        throw new CliException(
            ExitCode.USAGE,
            (key != null ? "--key" : "--cert") + " needs --root-hash-signature-out");
      }
      return null;
    }
    if (key == null || cert == null) {
      throw new CliException(ExitCode.USAGE, "--root-hash-signature-out needs --key and --cert");
    }
    Signing s = Signing.load(key, cert);
    s.sign(
        k ->
            RootHashSignature.sign(
                "00", k.key(), k.cert())); // a key the certificate does not hold fails now
    return s;
  }

  private int roots() {
    return fecRoots == null ? ReedSolomon.DEFAULT_ROOTS : fecRoots;
  }

  private long fecOffset() {
    return fecOffset == null ? 0 : fecOffset;
  }

  /**
   * The FEC options alone: given only with --fec-device, roots in range, a sector-aligned offset.
   */
  private void checkFecOptions() {
    if (fecDevice == null) {
      if (fecOffset != null || fecRoots != null) {
        throw new CliException(
            ExitCode.USAGE,
            (fecOffset != null ? "--fec-offset" : "--fec-roots") + " needs --fec-device");
      }
      return;
    }
    if (fecDevice.toString().isEmpty()) {
      throw new CliException(ExitCode.INVALID_PARAMETER, "--fec-device: empty file name");
    }
    if (Files.isDirectory(fecDevice)) {
      throw new CliException(ExitCode.IO_ERROR, fecDevice + ": FEC file is a directory");
    }
    int roots = ReedSolomon.checkRoots("--fec-roots", roots(), VerityParameterException::new);
    long off = fecOffset();
    if (off < 0 || off % VerityParams.SECTOR_SIZE != 0) {
      throw new VerityParameterException(
          "--fec-offset: "
              + off
              + " (expected: a non-negative multiple of "
              + VerityParams.SECTOR_SIZE
              + ")");
    }
  }

  /**
   * When the FEC area shares a file with the data or the hash area, it must lie past both: the
   * parity would otherwise overwrite what it protects (veritysetup 2.6 refuses only the data
   * overlap and silently overwrites the tree or the superblock). {@code repair} checks the same
   * before it writes.
   */
  static void checkFecOverlaps(
      VerityParams p, MerkleLayout layout, FecLayout fec, boolean onHash, boolean onData) {
    long start = fec.fecOffset();
    if (onData && start < p.dataSize()) {
      throw new VerityParameterException(
          "--fec-offset: "
              + start
              + " (the FEC area overlaps the data,"
              + " which ends at byte "
              + p.dataSize()
              + ")");
    }
    if (onHash) {
      long areaStart = layout.hashAreaStart();
      long areaEnd = layout.hashDeviceSize();
      if (start + fec.paritySize() > areaStart && start < areaEnd) {
        throw new VerityParameterException(
            "--fec-offset: "
                + start
                + " (the FEC area overlaps the hash"
                + " area, bytes "
                + areaStart
                + " to "
                + areaEnd
                + ")");
      }
    }
  }

  /**
   * Outputs that must be files of their own: none may be the data, the key or the certificate, or
   * another output. HASH on DATA and the FEC area on either are single-device layouts, which the
   * geometry's overlap checks decide instead.
   */
  private DistinctFiles distinctOutputs() throws IOException {
    DistinctFiles d =
        new DistinctFiles()
            .input("data file", data)
            .input("--key file", key)
            .input("--cert file", cert);
    boolean hashOnData = sameFile(hash, data);
    if (!hashOnData) {
      d.output("HASH", hash);
    }
    if (fecDevice != null && !sameFile(fecDevice, hash) && !sameFile(fecDevice, data)) {
      d.output("--fec-device", fecDevice);
    }
    return d.output("--root-hash-file", rootHashFile)
        .output("--root-hash-signature-out", rootHashSignatureOut);
  }

  /** Whether two paths name one file; paths of files not yet created compare by name. */
  private static boolean sameFile(Path a, Path b) throws IOException {
    return DistinctFiles.same(a, b);
  }
}
