package org.jverity.cli.fsverity;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.DistinctFiles;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.command.Signing;
import org.jverity.cli.command.Stdout;
import org.jverity.cli.remote.RemoteArguments;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Location;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;
import org.jverity.format.Hex;
import org.jverity.format.VerityParameterException;
import org.jverity.fsverity.FileDigestMismatchException;
import org.jverity.fsverity.FsVerityDigest;
import org.jverity.fsverity.FsVerityParams;
import org.jverity.fsverity.VerifiedFile;
import org.jverity.hash.HashAlgorithm;
import org.jverity.image.DeviceSource;
import org.jverity.image.Locations;
import org.jverity.io.AtomicOutput;
import org.jverity.io.BlockDevice;
import org.jverity.sig.InvalidSignatureException;
import org.jverity.sig.SignedFileDigest;
import org.jverity.verify.CorruptBlockException;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.HashingPool;
import org.jverity.verify.IoClass;
import org.jverity.verify.ReaderOptions;

/**
 * {@code cat}: an fs-verity file, verified through its Merkle tree against its file digest, given
 * ({@code --digest}) or vouched for by a built-in signature ({@code --signature} and {@code
 * --trusted-cert}). Exit codes: 7 when file and tree do not give the digest, 14 when the signature
 * does not sign the digest they give (nothing is written either way), 8 at the first corrupted
 * block (every byte before it is written to stdout; {@code --output} is left as it was), 9 when the
 * tree is too short.
 */
/**
 * {@code jverity cat}: a file's bytes, every block verified through its fs-verity Merkle tree
 * against a trusted file digest (given, or signed by a trusted certificate), the read
 * fsverity-utils leaves to the kernel. A file or a URL; stdout or an {@code --output} written aside
 * and renamed.
 */
public final class CatCommand implements Command {
  private static final int PIECE = 1 << 20; // bytes read and written at a time

  String file;
  String tree;
  String digest;
  Path signature;
  List<Path> trusted;
  final FsVerityOptions options = new FsVerityOptions();
  final RemoteArguments remote = new RemoteArguments();
  Path output;
  boolean json;

  public static final Syntax<CatCommand> SYNTAX =
      Syntax.command(
              "cat",
              "Write FILE to stdout (or --output), every block verified through its fs-verity Merkle tree"
                  + " (fsverity digest --out-merkle-tree) against the file digest, given with --digest or signed"
                  + " (--signature, as fsverity sign writes it, by a --trusted-cert); stops at the first block that does"
                  + " not verify, naming it. On stdout the verified bytes before that block are written; --output FILE"
                  + " is written only when every block verified (through a temporary file beside it, renamed over it):"
                  + " a cat that fails leaves FILE as it was, or absent.",
              CatCommand::new)
          .parameter(
              "FILE",
              "The file: a path, or a URL (http://, https://, s3://BUCKET/KEY).",
              (c, v) -> c.file = Location.parse(v))
          .requiredOption(
              "--merkle-tree",
              "TREE",
              "Its Merkle tree, as fsverity digest --out-merkle-tree writes it (a path or a URL).",
              (c, v) -> c.tree = Location.parse(v))
          .option(
              "--digest",
              "ALG:HEX",
              "The expected fs-verity file digest, e.g. sha256:3d24... (HEX alone means --hash-alg's).",
              (c, v) -> c.digest = v)
          .option(
              "--signature",
              "SIG",
              "Instead of --digest: a signature of the file digest (DER PKCS#7, fsverity sign); needs --trusted-cert.",
              (c, v) -> c.signature = FileName.parse(v))
          .option(
              "--trusted-cert",
              "PEM",
              "Certificate(s) trusted to sign file digests (PEM; repeatable).",
              (c, v) -> c.trusted = Syntax.append(c.trusted, FileName.parse(v)))
          .include(FsVerityOptions.SYNTAX, c -> c.options)
          .include(RemoteArguments.SYNTAX, c -> c.remote)
          .option(
              "-o, --output",
              "FILE",
              "Write to FILE instead of stdout (not one of the inputs: refused, exit 3).",
              (c, v) -> c.output = OutputFile.parse(v))
          .flag(
              "--json",
              "With -o: print a JSON summary on stdout (bytes written, the verified digest)."
                  + " Needs -o: stdout carries the data otherwise.",
              c -> c.json = true)
          .abbreviations()
          .example(
              "Copy app.bin to app.copy, every block verified against its Merkle tree and its digest:",
              "jverity cat app.bin --merkle-tree app.bin.merkle --digest \"$(jverity digest app.bin | cut -d ' ' -f 1)\" -o app.copy");

  @Override
  public int run(Io io) throws IOException, InvalidSignatureException {
    checkGiven();
    if (json && output == null) {
      throw new CliException(
          ExitCode.USAGE, "--json needs -o FILE: without it stdout carries the data");
    }
    FsVerityParams checked =
        options.params(digestAlgorithm()); // refuses what fsverity digest refuses
    VerifiedFile.Parameters params =
        new VerifiedFile.Parameters(checked.blockSize(), checked.salt());
    new DistinctFiles()
        .input("file", Locations.file(file))
        .input("--merkle-tree file", Locations.file(tree))
        .input("--signature file", signature)
        .inputs("--trusted-cert file", trusted)
        .outputOrStdout("--output", output)
        .check();
    DeviceSource source = remote.source(DeviceSource.LOCAL, file, tree);
    try {
      return cat(io, params, source);
    } finally {
      RemoteArguments.close(source); // after the devices
    }
  }

  private int cat(Io io, VerifiedFile.Parameters params, DeviceSource source)
      throws IOException, InvalidSignatureException {
    try {
      if (source != DeviceSource.LOCAL) { // the file and its tree read through a BlockDevice each
        try (BlockDevice fileDev = source.open(file);
            BlockDevice treeDev = source.open(tree)) {
          return write(io, openVerified(params, fileDev, treeDev));
        }
      }
      return write(io, openVerified(params));
    } catch (FileDigestMismatchException e) {
      throw new CliException(ExitCode.ROOT_HASH_MISMATCH, e.getMessage());
    }
  }

  /** Writes {@code opened} where the command says; closes it. */
  private int write(Io io, VerifiedFile opened) throws IOException {
    // --output appears only once every block verified: a failed cat leaves it as it was.
    try (VerifiedFile f = opened;
        AtomicOutput target = output == null ? null : AtomicOutput.to(output)) {
      try (OutputStream out = open(target)) {
        copy(f, out);
      }
      if (target != null) {
        target.commit();
      }
      if (json) {
        io.result(summary(f));
      }
    }
    return ExitCode.OK;
  }

  /** --json: what was written, and the digest it verified against (as digest --json names them). */
  private Map<String, Object> summary(VerifiedFile f) {
    FsVerityDigest verified = f.fileDigest();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("output", output.toString());
    m.put("file", file);
    m.put("length", f.size());
    m.put("hashAlgorithm", verified.algorithm().kernelName());
    m.put("digest", Hex.format(verified.bytes()));
    m.put("rootHash", Hex.format(f.rootHash()));
    return m;
  }

  /** Exactly one of --digest and --signature; --trusted-cert with --signature only. */
  private void checkGiven() {
    if ((digest == null) == (signature == null)) {
      throw new CliException(
          ExitCode.USAGE,
          digest == null
              ? "cat needs --digest, or --signature with --trusted-cert"
              : "give --digest or --signature, not both");
    }
    if ((signature == null) != (trusted == null)) {
      throw new CliException(
          ExitCode.USAGE,
          signature == null
              ? "--trusted-cert needs --signature"
              : "--signature needs --trusted-cert");
    }
  }

  /** The file opened with the given digest, or with the one the signature signs (checked first). */
  private VerifiedFile openVerified(VerifiedFile.Parameters params)
      throws IOException, InvalidSignatureException {
    Path f = Path.of(file);
    Path t = Path.of(tree);
    if (digest != null) {
      return VerifiedFile.open(f, t, expectedDigest(), params, ReaderOptions.DEFAULTS);
    }
    Checks.requireFile(signature, "signature");
    List<X509Certificate> certs = Signing.certificates(trusted);
    HashAlgorithm alg = options.algorithm != null ? options.algorithm : HashAlgorithm.SHA256;
    return SignedFileDigest.open(
        f, t, Files.readAllBytes(signature), certs, alg, params, ReaderOptions.DEFAULTS);
  }

  /**
   * As {@link #openVerified(VerifiedFile.Parameters)}, over devices the caller owns (a remote file
   * or tree): the process-wide cache and pool, as for local files.
   */
  private VerifiedFile openVerified(
      VerifiedFile.Parameters params, BlockDevice fileDev, BlockDevice treeDev)
      throws IOException, InvalidSignatureException {
    String expected;
    if (digest != null) {
      expected = expectedDigest();
    } else {
      Checks.requireFile(signature, "signature");
      List<X509Certificate> certs = Signing.certificates(trusted);
      HashAlgorithm alg = options.algorithm != null ? options.algorithm : HashAlgorithm.SHA256;
      expected =
          SignedFileDigest.check(
              Files.readAllBytes(signature),
              VerifiedFile.describe(fileDev, treeDev, alg, params),
              certs);
    }
    return VerifiedFile.open(
        fileDev,
        treeDev,
        expected,
        params,
        HashBlockCache.shared(),
        ReaderOptions.DEFAULTS,
        HashingPool.shared());
  }

  /**
   * The algorithm the tree is hashed with: --hash-alg's, else the one --digest names when fs-verity
   * has it (another name is refused when the file is opened), else SHA-256.
   */
  private HashAlgorithm digestAlgorithm() {
    if (options.algorithm != null || digest == null || digest.indexOf(':') < 0) {
      return options.algorithm != null ? options.algorithm : HashAlgorithm.SHA256;
    }
    String named = digest.substring(0, digest.indexOf(':')).toLowerCase(Locale.ROOT);
    return named.equals("sha512") ? HashAlgorithm.SHA512 : HashAlgorithm.SHA256;
  }

  /**
   * {@code --digest} with its algorithm, which must agree with {@code --hash-alg} when both say
   * one.
   */
  private String expectedDigest() {
    String given = options.algorithm == null ? null : options.algorithm.kernelName();
    int colon = digest.indexOf(':');
    if (colon < 0) {
      return (given == null ? "sha256" : given) + ":" + digest;
    }
    String named = digest.substring(0, colon).toLowerCase(Locale.ROOT);
    if (given != null && !given.equals(named)) {
      throw new VerityParameterException(
          "--hash-alg: " + given + " (expected: " + named + ", as --digest says)");
    }
    return digest;
  }

  private static OutputStream open(AtomicOutput target) throws IOException {
    return new BufferedOutputStream(
        target == null ? Stdout.stream() : Channels.newOutputStream(target.writer()), PIECE);
  }

  /**
   * Copies verified bytes in block-aligned pieces. When a piece fails, the scheduler has reported
   * its lowest failing block and every byte before it verified: those are written, then the error.
   */
  private static void copy(VerifiedFile f, OutputStream out) throws IOException {
    int bs = f.blockSize();
    byte[] buf = new byte[PIECE];
    long pos = 0;
    long end = f.size();
    while (pos < end) {
      long pieceEnd = Math.min(end, pos + PIECE); // pos is block-aligned, PIECE a multiple of bs
      int n = (int) (pieceEnd - pos); // <= PIECE
      try {
        f.read(pos, buf, 0, n, IoClass.BEST_EFFORT); // hashed on every core
      } catch (CorruptBlockException e) {
        if (e.dataBlock() >= 0) {
          out.write(
              buf,
              0,
              (int) (Math.max(pos, e.dataBlock() * bs) - pos)); // the verified bytes before it
        }
        out.flush();
        throw e;
      }
      out.write(buf, 0, n);
      pos = pieceEnd;
    }
  }
}
