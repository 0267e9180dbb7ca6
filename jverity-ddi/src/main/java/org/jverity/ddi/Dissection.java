package org.jverity.ddi;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jverity.ddi.gpt.Gpt;
import org.jverity.ddi.gpt.Guids;
import org.jverity.io.BlockDevice;

/**
 * A DDI as systemd-dissect reads it: its partitions by type, every signature partition's JSON (or
 * why it is refused), and for root and usr what would be used and why ({@link Choice}). The rules,
 * from systemd's dissect-image.c: partitions are found by type for one architecture; the root hash
 * is taken from the command line, else a sidecar file, else a signature partition; with a root hash
 * known, only the data partition whose UUID is its first 128 bits and the verity partition whose
 * UUID is its last 128 bits are used; of two signature partitions, one whose JSON carries the root
 * hash known is taken (as systemd since #39664), and without one the newest label, the first in the
 * table on a tie (as systemd 252's dissect_image() takes every signature partition, whatever the
 * root hash: a later one replaces the first only with a newer label). Immutable.
 *
 * @param gpt the table
 * @param arch the architecture whose partitions were looked for
 * @param partitions every partition, in table order
 * @param signatures each signature partition's JSON, by partition number in table order; a refused
 *     one is absent and its reason is in {@code warnings}
 * @param choices what root and usr would use, root first; empty when the image has neither
 * @param warnings what a user should hear about, one line each
 */
public record Dissection(
    Gpt gpt,
    String arch,
    List<DdiPartition> partitions,
    Map<Integer, VeritySignature> signatures,
    List<Choice> choices,
    List<String> warnings) {

  public Dissection {
    partitions = List.copyOf(partitions);
    // in table order, as inspect lists them (Map.copyOf would not keep it)
    signatures = Collections.unmodifiableMap(new TreeMap<>(signatures));
    choices = List.copyOf(choices);
    warnings = List.copyOf(warnings);
  }

  /** The root hashes given from outside the image, for root and usr: each may be null. */
  public record GivenHashes(
      String root, RootHashSource rootSource, String usr, RootHashSource usrSource) {
    public static final GivenHashes NONE = new GivenHashes(null, null, null, null);

    String of(Designator d) {
      return d == Designator.ROOT ? root : usr;
    }

    RootHashSource sourceOf(Designator d) {
      return d == Designator.ROOT ? rootSource : usrSource;
    }
  }

  /** The choice for {@code designator}, if the image has that data partition. */
  public Optional<Choice> choice(Designator designator) {
    return choices.stream().filter(c -> c.designator() == designator).findFirst();
  }

  /**
   * Reads the table of {@code image} and dissects it for {@code arch}.
   *
   * @param given root hashes from the command line or sidecar files
   */
  public static Dissection of(BlockDevice image, String arch, GivenHashes given)
      throws IOException {
    Gpt gpt = Gpt.read(image);
    List<DdiPartition> partitions = new ArrayList<>();
    gpt.partitions().forEach(e -> partitions.add(DdiPartition.of(e)));
    List<String> warnings = new ArrayList<>(gpt.warnings());
    Map<Integer, VeritySignature> signatures = new LinkedHashMap<>();
    for (DdiPartition p : partitions) {
      if (p.type().isPresent()
          && p.type().get().designator().signature() == p.type().get().designator()) {
        readSignature(image, gpt, p, signatures, warnings);
      }
    }
    List<Choice> choices = new ArrayList<>();
    for (Designator d : List.of(Designator.ROOT, Designator.USR)) {
      choose(d, arch, partitions, signatures, given, warnings).ifPresent(choices::add);
    }
    boolean other =
        partitions.stream()
            .anyMatch(p -> p.type().isPresent() && !p.type().get().arch().equals(arch));
    if (choices.isEmpty() && other) {
      warnings.add(
          "no root or usr partition for "
              + arch
              + "; the image has partitions for "
              + String.join(
                  ", ",
                  partitions.stream()
                      .flatMap(p -> p.type().stream())
                      .map(PartitionType::arch)
                      .distinct()
                      .toList())
              + " (see --arch)");
    }
    return new Dissection(gpt, arch, partitions, signatures, choices, warnings);
  }

  private static void readSignature(
      BlockDevice image,
      Gpt gpt,
      DdiPartition p,
      Map<Integer, VeritySignature> signatures,
      List<String> warnings)
      throws IOException {
    long size = p.entry().size(gpt.sectorSize());
    if (size > VeritySignature.MAX_PARTITION_BYTES) {
      warnings.add(
          p.describe()
              + ": "
              + size
              + " bytes, refused (systemd-dissect takes at most "
              + VeritySignature.MAX_PARTITION_BYTES
              + ")");
      return;
    }
    byte[] bytes = new byte[(int) size];
    image.readFully(p.entry().offset(gpt.sectorSize()), bytes, 0, bytes.length);
    try {
      signatures.put(p.entry().number(), VeritySignature.parse(p.describe(), bytes));
    } catch (DdiFormatException e) {
      warnings.add(e.getMessage() + ": refused, as systemd-dissect refuses it");
    }
  }

  private static Optional<Choice> choose(
      Designator d,
      String arch,
      List<DdiPartition> all,
      Map<Integer, VeritySignature> signatures,
      GivenHashes given,
      List<String> warnings) {
    List<DdiPartition> datas = all.stream().filter(p -> p.is(d, arch)).toList();
    if (datas.isEmpty()) {
      return Optional.empty();
    }
    List<DdiPartition> veritys = all.stream().filter(p -> p.is(d.verity(), arch)).toList();
    List<DdiPartition> sigs =
        all.stream()
            .filter(p -> p.is(d.signature(), arch) && signatures.containsKey(p.entry().number()))
            .toList();
    List<String> notes = new ArrayList<>();
    String root = given.of(d);
    RootHashSource source = root == null ? null : given.sourceOf(d);
    if (root != null) {
      root = root.toLowerCase(Locale.ROOT);
    }

    DdiPartition sigPart = null;
    if (!sigs.isEmpty()) {
      if (root != null) {
        String want = root;
        sigPart =
            sigs.stream()
                .filter(p -> signatures.get(p.entry().number()).rootHash().equals(want))
                .reduce((a, b) -> b)
                .orElse(null);
        if (sigPart == null) {
          notes.add(
              "no signature partition signs the root hash from "
                  + source.phrase()
                  + ": the image would be used unsigned");
        }
        DdiPartition old = newest(sigs);
        if (!signatures.get(old.entry().number()).rootHash().equals(want)) {
          // systemd 252's dissected_image_load_verity_sig_partition(): the signature partition
          // dissect_image() took, whatever the root hash, must carry the one configured (-EINVAL)
          warnings.add(
              d.label()
                  + ": systemd-dissect before v259 (#39664) refuses this image: it takes "
                  + old.describe()
                  + ", whose rootHash is not the root hash from "
                  + source.phrase()
                  + " (\"Failed to load verity signature partition: Invalid argument\")");
        }
      } else {
        sigPart = newest(sigs);
        root = signatures.get(sigPart.entry().number()).rootHash();
        source = RootHashSource.SIGNATURE_PARTITION;
      }
      if (sigs.size() > 1) {
        notes.add(
            sigs.size()
                + " signature partitions: "
                + (sigPart == null ? "none" : sigPart.describe())
                + " used; systemd before v259 (#39664) takes the newest label, "
                + newest(sigs).describe());
      }
    }

    DdiPartition data;
    DdiPartition verity = null;
    if (root != null) {
      byte[] hash = HexFormat.of().parseHex(root);
      if (hash.length < 32) {
        notes.add("root hash of " + hash.length + " bytes: too short to name partitions by UUID");
        data = newest(datas);
      } else {
        var dataUuid = Guids.ofBytes(hash, 0);
        var verityUuid = Guids.ofBytes(hash, hash.length - 16);
        data =
            datas.stream().filter(p -> p.entry().guid().equals(dataUuid)).findFirst().orElse(null);
        verity =
            veritys.stream()
                .filter(p -> p.entry().guid().equals(verityUuid))
                .findFirst()
                .orElse(null);
        if (data == null) {
          notes.add(
              "no "
                  + d.label()
                  + " partition has the root hash's first half as its UUID ("
                  + dataUuid
                  + "): systemd-dissect finds nothing to verify");
          warnings.add(
              d.label()
                  + ": the root hash from "
                  + source.phrase()
                  + " names no partition of this image");
          return Optional.of(
              new Choice(
                  d, newest(datas), null, sigPart, sig(signatures, sigPart), root, source, notes));
        }
        if (verity == null) {
          notes.add(
              "no "
                  + d.verity().label()
                  + " partition has the root hash's last half as its"
                  + " UUID ("
                  + verityUuid
                  + ")");
        }
      }
    } else {
      data = newest(datas);
      if (!veritys.isEmpty()) {
        notes.add(
            "a "
                + d.verity().label()
                + " partition but no root hash (no option, sidecar or"
                + " signature partition): the data would be used unverified");
      } else {
        notes.add("no verity partition: the data would be used unverified");
      }
    }
    if (datas.size() > 1) {
      notes.add(datas.size() + " " + d.label() + " partitions: " + data.describe() + " used");
    }
    return Optional.of(
        new Choice(d, data, verity, sigPart, sig(signatures, sigPart), root, source, notes));
  }

  private static VeritySignature sig(Map<Integer, VeritySignature> signatures, DdiPartition p) {
    return p == null ? null : signatures.get(p.entry().number());
  }

  /** Of partitions of one type, the one systemd-dissect picks: the newest label, first on a tie. */
  static DdiPartition newest(List<DdiPartition> candidates) {
    DdiPartition best = candidates.getFirst();
    for (DdiPartition p : candidates) {
      if (VersionOrder.INSTANCE.compare(p.entry().name(), best.entry().name()) > 0) {
        best = p;
      }
    }
    return best;
  }
}
