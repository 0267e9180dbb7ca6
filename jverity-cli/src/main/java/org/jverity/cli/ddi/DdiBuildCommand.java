package org.jverity.cli.ddi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.Command;
import org.jverity.cli.command.DistinctFiles;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Io;
import org.jverity.cli.remote.RemoteArguments;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Location;
import org.jverity.cli.syntax.OutputFile;
import org.jverity.cli.syntax.Syntax;
import org.jverity.cli.term.ProgressBar;
import org.jverity.ddi.BuildRequest;
import org.jverity.ddi.BuiltImage;
import org.jverity.ddi.DdiBuilder;
import org.jverity.ddi.DdiPartition;
import org.jverity.ddi.Designator;
import org.jverity.ddi.ExtraPartition;
import org.jverity.ddi.PartitionTypes;
import org.jverity.ddi.RootHashSigner;
import org.jverity.format.VerityParams;
import org.jverity.image.DeviceSource;
import org.jverity.io.AtomicOutput;
import org.jverity.io.BlockDevice;
import org.jverity.io.FileDevice;
import org.jverity.sig.InvalidSignatureException;

/**
 * {@code jverity ddi build}: a Discoverable Disk Image made in a plain file by an ordinary user (no
 * loop device, no device-mapper, no root): a file system image as its root or usr partition, the
 * verity partition, and, given a key, the signature partition, under a GPT. The file is written
 * aside and renamed into place, so a failed build leaves an existing one as it was.
 */
public final class DdiBuildCommand implements Command {
  Path output;
  Path fs;

  /** The file system image at a URL, instead of {@link #fs}. */
  String fsUrl;

  final RemoteArguments remote = new RemoteArguments();
  Designator data;
  String arch = PartitionTypes.nativeArch();
  int sectorSize = 512;
  int blockSize = 4096;
  String seed;
  byte[] salt;
  final SigningChoice signing = new SigningChoice();
  List<ExtraFile> extras = new ArrayList<>();
  boolean json;

  public static final Syntax<DdiBuildCommand> SYNTAX =
      Syntax.command(
              "ddi build",
              "Build a Discoverable Disk Image in OUT.raw from a file system image, as an ordinary"
                  + " user: the data partition, its verity partition and, signed, its signature"
                  + " partition, as systemd-repart lays them out, then any --extra partitions.",
              DdiBuildCommand::new)
          .parameter("OUT.raw", "The image to write.", (c, v) -> c.output = OutputFile.parse(v))
          .option(
              "--root",
              "FS.img",
              "The file system image (ext4, erofs, squashfs) to make the root partition of: a file,"
                  + " or an http(s):// or s3:// URL (read in ranges).",
              (c, v) -> c.data(Designator.ROOT, v))
          .namesAFile()
          .option(
              "--usr",
              "FS.img",
              "The file system image to make the usr partition of (instead of --root).",
              (c, v) -> c.data(Designator.USR, v))
          .namesAFile()
          .option(
              "--arch",
              "ARCH",
              "The architecture whose partition types to use (x86-64, arm64, ...; default: this"
                  + " machine's).",
              (c, v) -> c.arch = v)
          .option(
              "--sector-size",
              "BYTES",
              "The GPT's sector size: 512 (default) or 4096.",
              (c, v) -> c.sectorSize = sectorSize(v))
          .option(
              "--block-size",
              "BYTES",
              "The verity tree's data and hash block size (default 4096).",
              (c, v) -> c.blockSize = VerityParams.checkBlockSize("block size", parseInt(v)))
          .option(
              "--seed",
              "UUID|random",
              "What the salt and UUIDs derive from, as systemd-repart's --seed (default: the"
                  + " machine ID): two builds with one seed are byte-identical.",
              (c, v) -> c.seed = v)
          .option(
              "--salt",
              "HEX",
              "The verity salt, instead of deriving it from the seed.",
              (c, v) -> c.salt = HexFormat.of().parseHex(v))
          .include(SigningChoice.SYNTAX, c -> c.signing)
          .option(
              "--extra",
              "TYPE:FILE",
              "Add a partition of TYPE holding FILE's bytes, after the verity set, in the order"
                  + " given (repeatable): TYPE is a name systemd gives a type (esp, xbootldr, swap,"
                  + " home, srv, var, tmp, user-home, linux-generic, or an architecture's, such as"
                  + " usr-arm64) or a type UUID. As systemd-repart makes a partition with only"
                  + " Type= and CopyBlocks=: 4096-byte aligned, FILE's size rounded up to 4096, no"
                  + " flags, labelled with the type's name, its UUID derived from the seed.",
              (c, v) -> c.extras.add(ExtraFile.parse(v)))
          .include(RemoteArguments.SYNTAX, c -> c.remote)
          .flag(
              "--json",
              "Print the result as JSON: the image, root hash and partitions.",
              c -> c.json = true)
          .abbreviations(
              List.of(
                  "--json",
                  "--signing_helper",
                  "--signing_helper_with_files",
                  "--print-digest",
                  "--extra"))
          .example(
              "Build a signed DDI of an ext4 image, reproducibly:",
              "jverity ddi build image.raw --root rootfs.ext4 --key key.pem --cert cert.pem"
                  + " --seed 0b8cbd47-7b6d-4a9d-9d3f-3d6a3f1f2a10");

  private void data(Designator d, String v) {
    if (data != null) {
      throw new CliException(ExitCode.USAGE, "--root and --usr: give one of them");
    }
    data = d;
    if (Location.isUrl(v)) {
      fsUrl = Location.parse(v);
    } else {
      fs = FileName.parse(v);
    }
  }

  private static int sectorSize(String v) {
    int n = parseInt(v);
    if (n != 512 && n != 4096) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER, "--sector-size: " + v + " (expected: 512 or 4096)");
    }
    return n;
  }

  private static int parseInt(String v) {
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new CliException(ExitCode.INVALID_PARAMETER, "'" + v + "' is not a number");
    }
  }

  @Override
  public int run(Io io) throws IOException {
    if (data == null) {
      throw new CliException(
          ExitCode.USAGE, "no file system image (--root FS.img or --usr FS.img)");
    }
    signing.check();
    Arch.check(arch);
    DistinctFiles files = new DistinctFiles().output("OUT.raw", output);
    if (fs != null) {
      Checks.requireFile(fs, "file system image");
      files.input("file system image", fs);
    }
    remote.requireFiles();
    files.inputs("signing input", signing.inputs());
    for (ExtraFile e : extras) {
      e.requireOutside(data, arch);
      Checks.requireFile(e.file(), "--extra file");
      files.input("--extra file", e.file());
    }
    files.check();
    RootHashSigner signer;
    try {
      signer = signing.signer();
    } catch (InvalidSignatureException e) { // a joined signature not --cert's, before any write
      throw new CliException(ExitCode.SIGNATURE_INVALID, e.getMessage());
    }
    BuildRequest request =
        new BuildRequest(data, arch, sectorSize, blockSize, seed(), salt, signer);
    BuiltImage built;
    List<FileDevice> opened = new ArrayList<>();
    DeviceSource source =
        fsUrl != null ? remote.source(DeviceSource.LOCAL_STREAMED, fsUrl) : DeviceSource.LOCAL;
    try (AtomicOutput out = AtomicOutput.to(output);
        BlockDevice in = fsUrl != null ? source.open(fsUrl) : FileDevice.openChannel(fs, false)) {
      List<ExtraPartition> extraParts = new ArrayList<>();
      long bytes = 2 * in.size(); // copied, then hashed
      for (ExtraFile e : extras) {
        FileDevice d = FileDevice.openChannel(e.file(), false);
        opened.add(d);
        extraParts.add(new ExtraPartition(e.type(), d));
        bytes += d.size();
      }
      try (FileDevice dev = out.device();
          ProgressBar bar = ProgressBar.start("ddi build", bytes, System.err)) {
        built = DdiBuilder.build(request, in, extraParts, dev, bar);
        bar.finish();
      } catch (InvalidSignatureException e) { // a joined signature of another root hash
        throw new CliException(ExitCode.SIGNATURE_INVALID, e.getMessage());
      } catch (GeneralSecurityException e) {
        throw new CliException(ExitCode.INVALID_PARAMETER, "cannot sign: " + e.getMessage());
      }
      out.commit();
    } finally {
      for (FileDevice d : opened) {
        d.close();
      }
      RemoteArguments.close(source); // after the devices
    }
    List<DdiPartition> parts = built.partitions().stream().map(e -> DdiPartition.of(e)).toList();
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("image", output.toString());
      m.put("rootHash", built.rootHash());
      m.put("signed", built.signature() != null);
      if (signing.printDigest) { // what the signature to join must sign, as ASCII
        m.put("digest", built.rootHash());
      }
      m.put("sectorSize", sectorSize);
      m.put("partitions", PartitionTable.json(built.gpt(), parts));
      io.result(m);
    } else if (signing.printDigest) {
      io.out().println(built.rootHash()); // alone, for a script to sign
    } else {
      PartitionTable.print(io.out(), built.gpt(), parts);
      io.out().println("Root hash: " + built.rootHash());
    }
    return ExitCode.OK;
  }

  /** The seed asked for: a UUID, a random one, or the machine ID as systemd-repart takes it. */
  private UUID seed() throws IOException {
    if (seed == null) {
      Path machineId = Path.of("/etc/machine-id");
      if (Files.isRegularFile(machineId)) {
        String id = Files.readString(machineId).strip();
        if (id.matches("[0-9a-fA-F]{32}")) {
          return uuid(id);
        }
      }
      return UUID.randomUUID();
    }
    if (seed.equals("random")) {
      return UUID.randomUUID();
    }
    String hex = seed.replace("-", "").toLowerCase(Locale.ROOT);
    if (!hex.matches("[0-9a-f]{32}")) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER, "--seed: '" + seed + "' (expected: a UUID or 'random')");
    }
    return uuid(hex);
  }

  private static UUID uuid(String hex32) {
    return new UUID(
        Long.parseUnsignedLong(hex32.substring(0, 16), 16),
        Long.parseUnsignedLong(hex32.substring(16), 16));
  }
}
