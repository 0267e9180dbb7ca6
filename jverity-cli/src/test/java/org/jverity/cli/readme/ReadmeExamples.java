package org.jverity.cli.readme;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What {@link ReadmeExamplesTest} does with each fenced block of the README and of {@code docs/}
 * ({@link ReadmeBlocks#FILES}), and the only changes it makes to their text before running it: the
 * placeholders they name, and where this machine's equivalents are. Every block must match exactly
 * one {@link Entry} (so a new example fails the test until it is run or said not to be runnable),
 * and every entry a block.
 */
final class ReadmeExamples {
  private ReadmeExamples() {}

  /** What the test does with a block. */
  enum Kind {
    /** Shell lines, run in order in one bash process, each as written after {@link #TEXT}. */
    SHELL,
    /** A config file: written as {@link Entry#file}, then {@link Entry#then} run as SHELL lines. */
    CONFIG,
    /** {@code $ COMMAND} and the output it prints; {@code ...} lines stand for any lines. */
    TRANSCRIPT,
    /** A systemd unit: its ExecStart= line is run as a SHELL line (systemd does not run here). */
    UNIT,
    /** Lines {@link Entry#then} prints on stderr, each from its start to " over " (if any). */
    OUTPUT,
    /** Java statements, run inside a main method with the test's class path. */
    JAVA,
    /** Not run, for {@link Entry#reason}. */
    NOT_RUN,
    /**
     * An install method of the README's {@link #INSTALL} section: it needs the release artifacts
     * that {@code bin/release} builds after {@code mvn verify}, so the release install test runs
     * it, not this one. Only that section's blocks may be of this kind.
     */
    RELEASE
  }

  /** The README's section whose blocks, and only those, are {@link Kind#RELEASE}. */
  static final String INSTALL = "Install";

  /**
   * How one block is handled: found by a line it contains ({@code marker}); {@code setup} and
   * {@code cleanup} are the test's own shell lines around it (cleanup also when it fails).
   */
  record Entry(
      String marker,
      Kind kind,
      String file,
      List<String> then,
      String setup,
      String cleanup,
      String reason) {
    static Entry shell(String marker, String setup, String cleanup) {
      return new Entry(marker, Kind.SHELL, null, List.of(), setup, cleanup, null);
    }

    static Entry config(String marker, String file, String setup, String... then) {
      return new Entry(marker, Kind.CONFIG, file, List.of(then), setup, "", null);
    }

    static Entry transcript(String marker, String setup, String cleanup) {
      return new Entry(marker, Kind.TRANSCRIPT, null, List.of(), setup, cleanup, null);
    }

    static Entry notRun(String marker, String reason) {
      return new Entry(marker, Kind.NOT_RUN, null, List.of(), "", "", reason);
    }

    static Entry release(String marker) {
      return new Entry(
          marker, Kind.RELEASE, null, List.of(), "", "", "run by the release install test");
    }
  }

  static final List<Entry> ENTRIES =
      List.of(
          // README.md: the install methods, then the tour, one example per capability.
          Entry.release("sudo apt install ./jverity_*_amd64.deb"),
          Entry.release("sudo tar -xzf jverity-*-linux-x86_64.tar.gz -C /opt"),
          Entry.release("bin/release dist"),
          Entry.shell("bin/jverity demo", "", ""),
          Entry.shell("# like veritysetup format: the header, then the root hash", "", ""),
          Entry.shell("# the tree and its Reed-Solomon parity", "", ""),
          Entry.shell("bin/jverity digest app.bin ", "", ""),
          Entry.shell("# data.img's bytes, each verified", "", ""),
          Entry.shell(
              "bin/jverity read https://www.example/images/v7/data.img",
              "cp data.img data.hash \"$WWW\"/images/v7/",
              ""),
          // The tour adds a footer to system.img; docs/avb.md's examples start from the raw image.
          Entry.shell(
              "# the tree, its FEC, a signed vbmeta, the footer",
              "cp --sparse=always system.img system.raw",
              "mv system.raw system.img"),
          Entry.shell("# as systemd-repart lays it out", "", ""),
          Entry.shell("aws s3 cp image.raw s3://images/os/image.raw", "", ""),
          // docs/: today's README's sections, in their order.
          Entry.shell("--hash-offset 4096000   # tree in the same file", "", ""),
          Entry.shell(
              "--fec-device data.fec --dry-run",
              "veritysetup format data.img data.hash --fec-device data.fec > /dev/null",
              ""),
          Entry.shell("fsverity digest app.bin --out-merkle-tree=app.bin.merkle", "", ""),
          Entry.shell("bin/jverity verify-sig FILE FILE.sig", "", ""),
          Entry.shell("nbdinfo nbd://127.0.0.1:10809/root", "", ""),
          Entry.shell(
              "nbdfuse -r mnt nbd://127.0.0.1:10809/root &",
              "out=fixture.out err=fixture.err; bin/jverity open data.img root data.hash"
                  + " \"$(root_hash data.img data.hash)\" > fixture.out 2> fixture.err & started $!",
              "mountpoint -q mounted && umount mounted; [ -n \"${dev-}\" ] && losetup -d \"$dev\";"
                  + " for m in mnt mnt2; do mountpoint -q $m && umount $m; done"),
          Entry.config(
              "description = the root file system",
              "serve.conf",
              "",
              "bin/jverity serve serve.conf   # prints nbd://127.0.0.1:10809/root"),
          Entry.transcript(
              "home  verified   nbd://",
              // root corrupted: a byte of root.img changed under a server that goes on serving
              // (serve.conf's root restarts on corruption), then read.
              "cp root.img root.good; sed /restart-on-corruption/d serve.conf > status.conf;"
                  + " out=serve.out err=serve.err; bin/jverity serve status.conf > serve.out"
                  + " 2> serve.err & started $!;"
                  + " printf X | dd of=root.img bs=1 seek=8192 conv=notrunc 2> /dev/null;"
                  + " nbdcopy nbd://127.0.0.1:10809/root - > /dev/null 2>&1",
              "mv root.good root.img"),
          Entry.transcript(
              "$ bin/jverity status root",
              "out=serve.out err=serve.err; bin/jverity serve serve.conf > serve.out 2> serve.err &"
                  + " started $!",
              ""),
          new Entry(
              "ExecStart=/opt/jverity/bin/jverity serve",
              Kind.UNIT,
              null,
              List.of(),
              "",
              "",
              "the rest of a unit is systemd's, which does not run in this container"),
          Entry.shell("nbdinfo --list -- [ bin/jverity serve serve.conf ]", "", ""),
          Entry.shell("--tls=require --tls-certificates=/etc/pki/jverity", "", ""),
          Entry.shell("scp data.img data.hash www.example:/srv/images/v7/", "", ""),
          Entry.shell("aws s3 cp data.img s3://images/v7/data.img", "", ""),
          Entry.shell("sgdisk -v image.raw", "", ""),
          Entry.shell("# signed, and an ESP after it", "", ""),
          Entry.config(
              "ddi = image.raw",
              "ddi.conf",
              "",
              "bin/jverity serve ddi.conf   # prints nbd://127.0.0.1:10809/os"),
          Entry.shell("--partition_size 4294967296 --calc_max_image_size", "", ""),
          Entry.shell("--signing_helper ./hsm-sign", "", ""),
          Entry.shell("bin/jverity avb calculate_vbmeta_digest --image vbmeta.img", "", ""),
          Entry.shell(
              "--follow_chain_partitions",
              // The block before erased system.img's footer: the image the chain was signed over.
              "cp --sparse=always system.avb system.img && cp --sparse=always system.img"
                  + " out/system.img",
              ""),
          Entry.shell(
              "bin/jverity verify system.img --avb-key system_key.avbpubkey",
              "cp --sparse=always system.avb system.img",
              ""),
          Entry.config(
              "avb-key = system_key.pem",
              "avb.conf",
              "",
              "bin/jverity serve avb.conf   # prints nbd://127.0.0.1:10809/system"),
          new Entry(
              "VerityImage.open(\"data.img\", \"data.hash\"",
              Kind.JAVA,
              "ReadmeLibraryExample.java",
              List.of(),
              "",
              "",
              null),
          Entry.notRun("jverity-core      java.base only", "a diagram of the modules"),
          Entry.notRun(
              "bench/format-verify.sh [SIZE]",
              "the benchmarks take minutes each; bench/ checks its own outputs"),
          // --debug's lines on stderr; the OpenSSL version after "over" is the machine's.
          new Entry(
              "# Block hashing: native loop over OpenSSL",
              Kind.OUTPUT,
              null,
              List.of("bin/jverity format data.img data.hash --fec-device data.fec --debug"),
              "",
              "",
              null));

  /** A change the test makes to a block's text before running it, and why. */
  record Substitution(Pattern pattern, String replacement, String why) {
    static Substitution literal(String text, String replacement, String why) {
      return new Substitution(Pattern.compile(Pattern.quote(text)), replacement, why);
    }
  }

  /**
   * The placeholders of the README and docs/ and this machine's equivalents, in the order applied
   * to every line of every block. {@code {NAME}} in a replacement is the shell variable NAME (see
   * {@link #COMPUTED} and {@link ReadmeExamplesTest}'s environment).
   */
  static final List<Substitution> TEXT =
      List.of(
          new Substitution(
              Pattern.compile("\\b(data|d)\\.hash([\"',\\s]+)(?:ROOT_HASH|ROOT)\\b"),
              "$1.hash$2{ROOT_$1}",
              "ROOT_HASH, ROOT: the root hash of the hash file before it, as it is then"),
          Substitution.literal(
              ":SALT:ROOT", ":{SALT_data}:{ROOT_data}", "an identity's SALT and ROOT: data.img's"),
          Substitution.literal(
              "verity1:sha256:4096:4096:262144:1:5a5a...:7198a5...",
              "verity1:sha256:4096:4096:1024:1:{SALT_data}:{ROOT_data}",
              "the library example's elided identity: data.img's"),
          Substitution.literal(
              "4392712ba01368efdf14b05c76f9e4df0d53664630b5d48632ed17a137f39076",
              "{ROOT_root}",
              "serve.conf's example root hash: root.img's"),
          Substitution.literal("sha256:3d24...", "sha256:{DIGEST_app}", "app.bin's digest"),
          new Substitution(Pattern.compile("\\bFILE\\b"), "app.bin", "FILE: a file to sign"),
          Substitution.literal("/dev/loop0", "{LOOP}", "a loop device the test attached"),
          Substitution.literal(
              "scp data.img data.hash www.example:/srv/",
              "cp data.img data.hash {WWW}/",
              "the web server is the test's nginx, its document root local"),
          Substitution.literal(
              "https://www.example/", "{ORIGIN}/", "the test's nginx (plain HTTP: no CA to give)"),
          Substitution.literal("/var/cache/jverity", "{PWD}/cache", "a scratch cache directory"),
          Substitution.literal("/run/root.sock", "{PWD}/sock/root.sock", "a scratch socket"),
          Substitution.literal("/etc/pki/jverity", "{PWD}/pki/jverity", "the test's certificates"),
          Substitution.literal(
              "/home/me/.pki/libnbd", "{PWD}/pki/libnbd", "the client's CA certificate"),
          new Substitution(
              Pattern.compile("(?<=\\s)/mnt\\b"), "{PWD}/mounted", "a scratch mount point"),
          Substitution.literal("/opt/jverity/bin/jverity", "{PWD}/bin/jverity", "this build"),
          Substitution.literal("/etc/jverity/serve.conf", "{PWD}/serve.conf", "serve.conf"),
          Substitution.literal("/run/jverity/serve.pid", "{PWD}/run/serve.pid", "a scratch file"));

  /** The shell variables computed before each line that uses them, from the files as they are. */
  static final Map<String, String> COMPUTED =
      Map.of(
          "ROOT_data", "root_hash data.img data.hash",
          "ROOT_d", "root_hash d.img d.hash",
          "ROOT_root", "root_hash root.img root.hash",
          "SALT_data", "salt_of data.hash",
          "DIGEST_app", "fsverity digest --compact app.bin");

  /**
   * Lines the test does not run as written ({@code instead} is run, or nothing when it is null),
   * and checks of what a line wrote beyond its exit status and its stated output, by a text the
   * line contains. A check is shell code over {@code $out} (the line's stdout file).
   */
  record Line(String marker, String instead, String check, String ready) {
    static Line check(String marker, String check) {
      return new Line(marker, null, check, null);
    }
  }

  static final List<Line> LINES =
      List.of(
          // bin/test is the whole suite, of which this test is one class.
          new Line("bin/test ", "", null, null),
          new Line(
              "nbdcopy nbd://127.0.0.1:10809/root - | sha256sum",
              null,
              "same_bytes \"$out\" data.img",
              null),
          new Line(
              "nbdcopy 'nbds://127.0.0.1:10809/img", null, "same_bytes \"$out\" data.img", null),
          new Line("] - | sha256sum", null, "same_bytes \"$out\" d.img", null),
          new Line(
              "nbdcopy nbd://127.0.0.1:10809/os - | sha256sum",
              null,
              "same_bytes \"$out\" rootfs.ext4",
              null),
          new Line("] copy.img", null, "cmp copy.img d.img || fail 'copy.img is not d.img'", null),
          // The tour's fs-verity lines say they are fsverity's: compared with fsverity's own.
          Line.check(
              "bin/jverity digest app.bin ",
              "[ \"$(cat \"$out\")\" = \"$(fsverity digest app.bin)\" ] || fail 'not fsverity digest'"),
          Line.check(
              "app.bin.sig --key=key.pem --cert=cert.pem   # as fsverity sign",
              "fsverity sign app.bin fsverity.sig --key=key.pem --cert=cert.pem > /dev/null"
                  + " && cmp app.bin.sig fsverity.sig || fail 'not fsverity sign'"),
          new Line(
              "ROOT_HASH -o copy.img   # the verified bytes, fetched in ranges",
              null,
              "cmp copy.img data.img || fail 'copy.img is not data.img'",
              null),
          new Line(
              "--fec-device data.fec -o copy.img",
              null,
              "cmp copy.img data.img || fail 'copy.img is not data.img'",
              null),
          new Line(
              "--trusted-cert=cert.pem > app.copy",
              null,
              "cmp app.copy app.bin || fail 'app.copy is not app.bin'",
              null),
          new Line(
              "--trusted-cert=cert.pem -o out.img",
              null,
              "cmp out.img data.img || fail 'out.img is not data.img'",
              null),
          new Line(
              "print(h.get_size())",
              null,
              "[ \"$(cat \"$out\")\" = \"$(stat -c %s d.img)\" ] || fail 'not the size of d.img'",
              null),
          new Line(
              "nbdinfo --list -- [ bin/jverity serve serve.conf ]",
              null,
              "grep -q 'export=\"root\"' \"$out\" && grep -q 'export=\"home\"' \"$out\""
                  + " || fail 'root and home not listed'",
              null),
          // What a reader waits for before the next line: nbdfuse mounting its file.
          Line.check(
              "nbdfuse -r mnt nbd://", "mounted mnt/nbd && same_bytes_file mnt/nbd data.img"),
          Line.check(
              "nbdfuse -r mnt2 --command", "mounted mnt2/nbd && same_bytes_file mnt2/nbd data.img"),
          Line.check(
              "mount -o ro \"$dev\" /mnt",
              "[ -e mounted/sample ] && cmp mounted/sample content/sample || fail 'not the files of data.img'"),
          new Line(
              "systemd-socket-activate -l 127.0.0.1:10809",
              null,
              "nbdinfo nbd://127.0.0.1:10809/disk > /dev/null || fail 'nbdinfo could not connect'",
              "Listening on"),
          new Line(
              "--partition_size 4294967296 --algorithm SHA256_RSA4096 --key system_key.pub.pem",
              null,
              "cp --sparse=always system.img system.avb",
              null),
          new Line(
              "--include_descriptors_from_image boot.img --padding_size 4096",
              null,
              "cp --sparse=always system.img system.avb",
              null));
}
