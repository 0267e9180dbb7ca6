package org.jverity.cli.verity;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.remote.RemoteArguments;
import org.jverity.cli.remote.RemoteDevices;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.syntax.WholeNumber;
import org.jverity.cli.term.ProgressBar;
import org.jverity.fec.FecRecovery;
import org.jverity.fec.FecRepairer;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.image.DeviceSource;
import org.jverity.image.FecSource;
import org.jverity.image.Locations;
import org.jverity.image.TrustedRoot;
import org.jverity.image.VerityImage;
import org.jverity.io.BlockDevice;
import org.jverity.tree.Area;
import org.jverity.tree.CheckReport;
import org.jverity.tree.Corruption;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.TreeChecker;

/**
 * {@code jverity verify}: every block of a data device checked against its hash tree and root hash,
 * as {@code veritysetup verify} checks them, with its exit codes, listing the corrupted blocks.
 */
public final class VerifyCommand implements Command {
  final ImageArguments image = new ImageArguments();
  final VerityOptions options = new VerityOptions();
  final FecOptions fec = new FecOptions();
  final RootHashSignatureOptions signature = new RootHashSignatureOptions();
  final RemoteArguments remote = new RemoteArguments();
  final AvbOptions avb = new AvbOptions();
  boolean json;
  Integer threads;
  private boolean withFec; // the check had FEC: veritysetup then calls a wrong root hash -EPERM

  public static final Syntax<VerifyCommand> SYNTAX =
      Syntax.command(
              "verify",
              "Verify DATA against the hash tree on HASH and ROOT_HASH, as veritysetup verify does,"
                  + " listing every corrupted block (the first "
                  + Corruption.MAX_REPORTED
                  + ", then a count). With --fec-device a wrong root hash exits 2 under"
                  + " veritysetup's codes, as veritysetup verify does (1 without).",
              VerifyCommand::new)
          .include(ImageArguments.OR_AVB, c -> c.image)
          .include(VerityOptions.CHECK, c -> c.options)
          .include(FecOptions.SYNTAX, c -> c.fec)
          .include(RootHashSignatureOptions.SYNTAX, c -> c.signature)
          .include(RemoteArguments.SYNTAX, c -> c.remote)
          .include(AvbOptions.SYNTAX, c -> c.avb)
          .flag("--json", "Print the result as JSON on stdout.", c -> c.json = true)
          .option(
              "--threads",
              "N",
              "Hashing threads (default: one per core).",
              (c, v) -> c.threads = WholeNumber.parseInt(v))
          .example(
              "Check every block of data.img against the tree and the root hash (exit 0: intact):",
              "jverity verify data.img data.hash \"$(cat root.hex)\"")
          .example(
              "The same with the root hash read from its file, and the parity checked too:",
              "jverity verify data.img data.hash --root-hash-file root.hex --fec-device data.fec");

  @Override
  public int run(Io io) throws IOException, GeneralSecurityException {
    Checks.requireThreads(threads);
    ImageRoot image = this.image.root("verify", options, fec, signature, avb, io.given());
    // One-shot: FileChannel devices open at once (no native binding to pay); nothing interrupts
    // them. URLs through a RemoteSource.
    DeviceSource source = remote.source(Trust.ONE_SHOT, image.data(), image.hash(), fec.device);
    try {
      return verify(io, source, image);
    } finally {
      RemoteArguments.close(source); // after the devices
    }
  }

  private int verify(Io io, DeviceSource source, ImageRoot image)
      throws IOException, GeneralSecurityException {
    String data = image.data();
    String hash = image.hash();
    withFec = fec.given(); // until the image says (an AVB image's vbmeta may give FEC)
    CheckReport report;
    TrustedRoot trusted;
    VerityParams p;
    TreeChecker checker;
    FecRepairer repairer =
        null; // with --fec-device: opened before the check, so a FEC file that could not serve is
    // refused
    Map<String, Object> remoteJson = null; // --json's "remote": what the origins did
    // The root is checked before any hashing: an unsigned root is refused outright.
    try (ImageRoot.Opened it = image.open(source, io.err())) {
      VerityImage opened = it.image();
      FecSource fecSource = it.fec();
      withFec = fecSource != null;
      BlockDevice dataDev = opened.data();
      BlockDevice hashDev = opened.hash();
      trusted = opened.trusted();
      p = trusted.params();
      byte[] root = trusted.rootHash();
      checker = TreeChecker.of(p);
      if (threads != null) {
        checker = checker.withThreads(threads);
      }
      if (Locations.anyRemote(data, hash)
          ? data.equals(hash)
          : Files.isSameFile(Path.of(data), Path.of(hash))) {
        checker.layout().checkNoOverlapWithData();
      }
      if (fecSource != null) {
        // as read and open: a FEC file that cannot serve is refused even if the image verifies
        repairer = opened.fecRepairer(fecSource, dataDev, hashDev); // the image closes it
      }
      try (ProgressBar bar = ProgressBar.start("verify", checker.workBytes(), System.err)) {
        report = checker.withProgress(bar).check(dataDev, hashDev, root);
        bar.finish();
      }
      if (source != Trust.ONE_SHOT) {
        remoteJson =
            RemoteDevices.json(
                source,
                List.of(
                    new RemoteDevices.Opened("data", data, dataDev),
                    new RemoteDevices.Opened("hash", hash, hashDev)));
      }
      if (fecSource != null && fecMayHelp(report, p)) {
        return withFec(io, report, trusted, dataDev, hashDev, repairer, remoteJson);
      }
    }
    int code = exitCode(report);
    if (json) {
      io.result(withRemote(toJson(report, code, trusted), remoteJson));
    }
    if (code == ExitCode.OK) {
      return code; // -v (global) says "Command successful."
    }
    describe(report, p, io.err());
    io.err().flush();
    return code;
  }

  /**
   * Damage found and FEC given: lists what FEC corrects and what it cannot, as veritysetup verify
   * --fec-device does; success when FEC corrects everything (in memory: nothing is written; see
   * {@code repair}).
   */
  private int withFec(
      Io io,
      CheckReport report,
      TrustedRoot trusted,
      BlockDevice dataDev,
      BlockDevice hashDev,
      FecRepairer repairer,
      Map<String, Object> remoteJson)
      throws IOException {
    VerityParams p = trusted.params();
    byte[] root = trusted.rootHash();
    var err = io.err();
    FecRecovery recovery = new FecRecovery(p, repairer);
    for (Corruption c : report.corruptions()) {
      recovery.knownBad(c.area(), c.block());
    }
    FecRecovery.Result r = recovery.run(dataDev, hashDev, root, Corruption.MAX_REPORTED);
    for (FecRecovery.Fix f : r.fixes()) {
      err.println(
          "jverity: "
              + BlockNames.of(f.area(), f.block(), p)
              + " is corrupted (correctable with FEC)");
    }
    for (var e : r.uncorrectable()) {
      err.println("jverity: " + BlockNames.of(e, p) + " is corrupted (FEC cannot correct it)");
    }
    if (r.uncorrectableCount() > r.uncorrectable().size()) {
      err.println(
          "jverity: ... and "
              + (r.uncorrectableCount() - r.uncorrectable().size())
              + " more data blocks FEC cannot correct");
    }
    // veritysetup's line, in its meaning: Reed-Solomon symbols (bytes) corrected; blocks in ours.
    err.println("Found " + r.correctedBytes() + " repairable errors with FEC device.");
    err.println(
        "jverity: "
            + r.fixes().size()
            + (r.fixes().size() == 1 ? " block is" : " blocks are")
            + " correctable with FEC");
    if (json) {
      Map<String, Object> m =
          toJson(report, r.complete() ? ExitCode.OK : ExitCode.CORRUPTION, trusted);
      m.put("fecCorrectableBlocks", r.fixes().size());
      m.put("fecCorrectedBytes", r.correctedBytes());
      m.put("fecUncorrectableDataBlocks", r.uncorrectableCount());
      io.result(withRemote(m, remoteJson));
    }
    if (!r.complete()) {
      err.println(
          "Verification failed: "
              + r.uncorrectableCount()
              + " data block"
              + (r.uncorrectableCount() == 1 ? "" : "s")
              + " cannot be corrected with FEC.");
      err.flush();
      return ExitCode.CORRUPTION;
    }
    err.flush();
    return ExitCode.OK; // as veritysetup: everything is correctable
  }

  /**
   * Whether FEC can make the image verify, decided before any FEC attempt. Not when nothing matches
   * (other parameters), the hash file is another image's, or the root hash is wrong: the tree
   * agrees with its top block and the top block does not hash to the root hash, so no correction
   * below it can help (trying would fail on every block, slowly). The diagnosis is then the one
   * verify gives without FEC.
   */
  static boolean fecMayHelp(CheckReport r, VerityParams p) {
    if (r.ok() || r.nothingMatches() || dataMismatch(r, p).foreign()) {
      return false;
    }
    int top = MerkleLayout.dmVerity(p).levels() - 1;
    return r.rootMatches()
        || r.corruptions().stream().anyMatch(c -> c.area() == Area.HASH && c.level() == top);
  }

  /**
   * veritysetup verify with {@code --fec-device} tries FEC after any failed verification, a wrong
   * root hash's -EFAULT included, and then returns -EPERM ("If root hash failed, we cannot be sure
   * it was properly repaired", cryptsetup's {@code VERITY_activate}): exit 2 where it exits 1
   * without FEC. The detailed code stays "wrong root hash".
   */
  @Override
  public int veritysetupExitCode(int code) {
    return withFec && code == ExitCode.ROOT_HASH_MISMATCH
        ? 2
        : Command.super.veritysetupExitCode(code);
  }

  static int exitCode(CheckReport r) {
    if (r.ok()) {
      return ExitCode.OK;
    }
    if (r.nothingMatches()) {
      return ExitCode.WRONG_PARAMETERS;
    }
    if (r.corruptionCount() > 0) {
      return ExitCode.CORRUPTION; // even if the root hash fails too: the tree is not consistent
    }
    return ExitCode.ROOT_HASH_MISMATCH;
  }

  private static void describe(CheckReport r, VerityParams p, PrintWriter err) {
    if (r.nothingMatches()) {
      err.println(
          "jverity: verification failed: no block matches its hash"
              + " (wrong salt, hash algorithm, format or block size?)");
      return;
    }
    DataMismatch mismatch = dataMismatch(r, p);
    if (mismatch.foreign()) {
      // One line: a list of hundreds of "corrupted" blocks would hide what is wrong.
      err.println(
          "jverity: "
              + mismatch.describe()
              + (r.rootMatches()
                  ? ""
                  : "; the tree does not hash to the root hash given either (it hashes to "
                      + Hex.format(r.computedRoot())
                      + ")"));
      return;
    }
    for (Corruption c : r.corruptions()) {
      err.println("jverity: " + BlockNames.of(c, p) + " is corrupted");
    }
    long more = r.corruptionCount() - r.corruptions().size();
    if (more > 0) {
      err.println("jverity: ... and " + more + " more corrupted blocks");
    }
    if (r.uncheckedDataBlocks() > 0) {
      err.println(
          "jverity: "
              + r.uncheckedDataBlocks()
              + " data blocks could not be checked: their hash blocks are corrupted");
    }
    if (!r.rootMatches()) {
      err.println(
          "jverity: verification of root hash failed: the tree hashes to "
              + Hex.format(r.computedRoot())
              + (r.corruptionCount() == 0 ? " (the tree matches the data: wrong root hash?)" : ""));
    } else {
      long data = r.corruptions().stream().filter(c -> c.area() == Area.DATA).count();
      err.println(
          "jverity: verification failed: "
              + r.corruptionCount()
              + " corrupted block"
              + (r.corruptionCount() == 1 ? "" : "s")
              + (r.corruptionCount() == r.corruptions().size()
                  ? " (" + data + " data, " + (r.corruptionCount() - data) + " hash)"
                  : "")
              + ".");
    }
  }

  /** Data blocks that mismatch a tree that verified, among those that could be checked. */
  static DataMismatch dataMismatch(CheckReport r, VerityParams p) {
    return new DataMismatch(
        r.dataCorruptionCount(), p.dataBlocks() - r.uncheckedDataBlocks(), false);
  }

  /** {@code m} with the {@code "remote"} object, when the image's devices are remote. */
  private static Map<String, Object> withRemote(Map<String, Object> m, Map<String, Object> remote) {
    if (remote != null) {
      m.put("remote", remote);
    }
    return m;
  }

  private static Map<String, Object> toJson(CheckReport r, int code, TrustedRoot trusted) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ok", r.ok());
    m.put("exitCode", code);
    if (r.ok()) { // only a verified image has an identity worth passing on
      m.put("identity", trusted.identity().toString());
    }
    m.put("rootHashMatches", r.rootMatches());
    m.put("computedRootHash", Hex.format(r.computedRoot()));
    m.put("corruptedBlocks", r.corruptionCount());
    m.put("corruptedDataBlocks", r.dataCorruptionCount());
    m.put("foreignHashFile", dataMismatch(r, trusted.params()).foreign());
    m.put("uncheckedDataBlocks", r.uncheckedDataBlocks());
    m.put("parametersMatch", !r.nothingMatches());
    List<Object> list =
        r.corruptions().stream()
            .map(
                c -> {
                  Map<String, Object> e = new LinkedHashMap<>();
                  e.put("area", c.area().toString());
                  e.put("block", c.block());
                  e.put("position", BlockNames.position(c.area(), c.block(), trusted.params()));
                  if (c.level() >= 0) {
                    e.put("level", c.level());
                  }
                  e.put("kind", c.kind() == Corruption.Kind.DIGEST_MISMATCH ? "digest" : "spare");
                  return (Object) e;
                })
            .toList();
    m.put("corruptions", list);
    return m;
  }
}
