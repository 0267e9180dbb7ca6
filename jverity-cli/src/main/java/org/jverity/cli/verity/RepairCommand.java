package org.jverity.cli.verity;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.DistinctFiles;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.term.ProgressBar;
import org.jverity.fec.FecLayout;
import org.jverity.fec.FecRecovery;
import org.jverity.fec.FecRepairer;
import org.jverity.format.Hex;
import org.jverity.format.VerityParams;
import org.jverity.image.TrustedRoot;
import org.jverity.io.FileDevice;
import org.jverity.tree.Area;
import org.jverity.tree.BlockRef;
import org.jverity.tree.CheckReport;
import org.jverity.tree.Corruption;
import org.jverity.tree.MerkleLayout;
import org.jverity.tree.TreeChecker;

/**
 * {@code jverity repair}: the blocks of data and hash device that fail verification, corrected in
 * place from the Reed-Solomon parity, only with corrections that verify (the kernel's FEC, applied
 * to the devices rather than to one read).
 */
public final class RepairCommand implements Command {
  final ImageArguments image = new ImageArguments();
  final VerityOptions options = new VerityOptions();
  final FecOptions fec = new FecOptions();
  boolean dryRun;
  boolean json;

  public static final Syntax<RepairCommand> SYNTAX =
      Syntax.command(
              "repair",
              "Correct, in place, the blocks of DATA and HASH that fail verification, with the"
                  + " Reed-Solomon parity on --fec-device: only corrections that verify against the tree and"
                  + " ROOT_HASH are written. --dry-run lists them and writes nothing.",
              RepairCommand::new)
          .include(ImageArguments.SYNTAX, c -> c.image)
          .include(VerityOptions.CHECK, c -> c.options)
          .include(FecOptions.SYNTAX, c -> c.fec)
          .flag("--dry-run", "List what would be written; write nothing.", c -> c.dryRun = true)
          .flag(
              "--json",
              "Print the result as JSON on stdout: the blocks repaired (or that would be), the count of those that cannot be.",
              c -> c.json = true)
          .example(
              "List the blocks the parity in data.fec would correct, writing nothing:",
              "jverity repair data.img data.hash --root-hash-file root.hex --fec-device data.fec --dry-run");

  @Override
  public int run(Io io) throws IOException {
    if (!fec.given()) {
      throw new CliException(
          ExitCode.USAGE, "repair needs --fec-device (the parity to correct with)");
    }
    Path data = image.dataFile("repair"); // written: a URL is refused before anything is read
    Path hash = image.hashFile("repair");
    Path fecFile = ImageArguments.localFile("repair --fec-device", fec.device);
    String rootText = image.check("repair");
    fec.check();
    PrintWriter out = io.out();
    PrintWriter err = io.err();
    List<AutoCloseable> fecDevices = new ArrayList<>();
    // One-shot, as verify: FileChannel devices; written only when a correction verified.
    try (FileDevice dataDev = FileDevice.openChannel(data, !dryRun);
        FileDevice hashDev = FileDevice.openChannel(hash, !dryRun)) {
      TrustedRoot trusted = Trust.resolve(options, data, hashDev, rootText);
      VerityParams p = trusted.params();
      byte[] root = trusted.rootHash();
      TreeChecker checker = TreeChecker.of(p);
      checkRoles(p, checker.layout(), hashDev.size(), data, hash, fecFile); // before any write
      FecRepairer repairer =
          fec.repairer(p, dataDev, hashDev, hash, fecDevices); // sized before the check
      CheckReport before;
      try (ProgressBar bar = ProgressBar.start("check", checker.workBytes(), System.err)) {
        before = checker.withProgress(bar).check(dataDev, hashDev, root);
        bar.finish();
      }
      if (before.ok()) {
        if (json) {
          io.result(toJson(List.of(), 0, p));
        } else {
          out.println("Nothing to repair: the image verifies.");
        }
        return ExitCode.OK;
      }
      if (before.nothingMatches()) {
        throw new CliException(
            ExitCode.WRONG_PARAMETERS,
            "no block matches its hash"
                + " (wrong salt, hash algorithm, format or block size?): nothing to repair with");
      }
      if (!VerifyCommand.fecMayHelp(before, p)) { // said before FEC is tried, as verify says it
        DataMismatch mismatch = VerifyCommand.dataMismatch(before, p);
        if (mismatch.foreign()) {
          throw new CliException(
              ExitCode.CORRUPTION, mismatch.describe() + ": nothing to repair with");
        }
        throw new CliException(
            ExitCode.ROOT_HASH_MISMATCH,
            "wrong root hash: the tree hashes to "
                + Hex.format(before.computedRoot())
                + " (its top block agrees with the blocks below it):"
                + " no correction can make it match, nothing repaired");
      }
      FecRecovery recovery = new FecRecovery(p, repairer);
      for (Corruption c : before.corruptions()) {
        recovery.knownBad(c.area(), c.block());
      }
      FecRecovery.Result r = recovery.run(dataDev, hashDev, root, Corruption.MAX_REPORTED);
      if (json) { // held before writing: a failure below still reports the corrections found
        io.result(toJson(r.fixes(), r.uncorrectableCount(), p));
      }
      for (FecRecovery.Fix f : r.fixes()) {
        if (!json) {
          out.println((dryRun ? "would repair " : "repaired ") + describe(f, p));
        }
        if (!dryRun) {
          FileDevice to = f.area() == Area.DATA ? dataDev : hashDev;
          long blockSize = f.area() == Area.DATA ? p.dataBlockSize() : p.hashBlockSize();
          to.writeFully(f.block() * blockSize, ByteBuffer.wrap(f.bytes()));
        }
      }
      if (!dryRun) {
        dataDev.flush();
        hashDev.flush();
      }
      for (var e : r.uncorrectable()) {
        err.println("jverity: " + e.ref() + " is corrupted" + " (FEC cannot correct it)");
      }
      if (!r.complete()) {
        err.println(
            "jverity: "
                + r.uncorrectableCount()
                + " data block"
                + (r.uncorrectableCount() == 1 ? "" : "s")
                + " cannot be repaired"
                + (dryRun ? "" : "; " + r.fixes().size() + " blocks were repaired"));
        return ExitCode.CORRUPTION;
      }
      if (!dryRun) {
        CheckReport after = checker.check(dataDev, hashDev, root);
        if (!after.ok()) {
          err.println(
              "jverity: the image still does not verify after repair ("
                  + after.corruptionCount()
                  + " corrupted blocks: damage FEC does not cover, such as spare bytes of hash blocks)");
          return ExitCode.CORRUPTION;
        }
      }
      if (!json) {
        out.println(
            (dryRun ? "Would repair " : "Repaired ")
                + r.fixes().size()
                + " block"
                + (r.fixes().size() == 1 ? "" : "s")
                + ".");
      }
      return ExitCode.OK;
    } finally {
      FecOptions.closeAll(fecDevices);
    }
  }

  /**
   * --json: the blocks repaired (written unless dry run), named as verify --json names corruptions.
   */
  private Map<String, Object> toJson(
      List<FecRecovery.Fix> fixes, long uncorrectable, VerityParams p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("dryRun", dryRun);
    m.put("repairedBlocks", fixes.size());
    m.put("uncorrectableDataBlocks", uncorrectable);
    MerkleLayout layout = MerkleLayout.dmVerity(p);
    List<Object> list = new ArrayList<>();
    for (FecRecovery.Fix f : fixes) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("area", f.area().toString());
      e.put("block", f.block());
      e.put("position", BlockNames.position(f.area(), f.block(), p));
      if (f.area() == Area.HASH && layout.levelOf(f.block()) >= 0) {
        e.put("level", layout.levelOf(f.block()));
      }
      list.add(e);
    }
    m.put("repairs", list);
    return m;
  }

  /**
   * One file given in two roles must hold them in separate bytes, or a correction written to one
   * would land in the other: data and hash (the hash area past the data, --hash-offset), FEC and
   * either (the parity past both, --fec-offset), as format lays them out.
   */
  private void checkRoles(
      VerityParams p, MerkleLayout layout, long hashSize, Path data, Path hash, Path fecFile)
      throws IOException {
    if (DistinctFiles.same(data, hash)) {
      layout.checkNoOverlapWithData();
    }
    boolean onHash = DistinctFiles.same(fecFile, hash);
    boolean onData = DistinctFiles.same(fecFile, data);
    if (onHash || onData) {
      FormatCommand.checkFecOverlaps(
          p, layout, FecLayout.of(p, fec.roots, fec.offset, onHash, hashSize), onHash, onData);
    }
  }

  /** "data block N" or "hash block N (level L)", as verify names blocks. */
  static String describe(FecRecovery.Fix f, VerityParams p) {
    int level = f.area() == Area.DATA ? -1 : MerkleLayout.dmVerity(p).levelOf(f.block());
    return new BlockRef(f.area(), f.block(), level).toString();
  }
}
