package org.jverity.cli.verity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jverity.fec.FecLayout;
import org.jverity.format.Hex;
import org.jverity.format.ImageIdentity;
import org.jverity.format.VerityParams;
import org.jverity.format.VeritySuperblock;
import org.jverity.tree.MerkleLayout;

/**
 * The "VERITY header information" block veritysetup prints for format and dump, line for line, and
 * the same facts (plus the layout) as JSON for build scripts.
 */
final class Header {
  private Header() {}

  /**
   * veritysetup's text: tab after each label, "Root hash" only when known, "Hash device size" only
   * when the hash area starts at offset 0 (as veritysetup 2.6 does).
   */
  static String text(String hashDevice, VerityParams p, byte[] rootHash) {
    return text(hashDevice, p, rootHash, null);
  }

  /**
   * The FEC parity written by format.
   *
   * @param device the FEC file as given
   * @param layout where the parity is
   * @param onHashDevice whether the FEC file is the hash file
   */
  record Fec(String device, FecLayout layout, boolean onHashDevice) {}

  /**
   * As {@link #text(String, VerityParams, byte[])}, with veritysetup's FEC lines when {@code fec}
   * is not null: roots and parity blocks after the algorithm; the hash device size counts the
   * parity when it shares the hash device (veritysetup assumes it follows the tree); "FEC device
   * size" only for a FEC device of its own with the parity at offset 0.
   */
  static String text(String hashDevice, VerityParams p, byte[] rootHash, Fec fec) {
    return text(hashDevice, p, rootHash, fec, p.hashAlgorithm().kernelName());
  }

  /**
   * As {@link #text(String, VerityParams, byte[], Fec)}, naming the hash algorithm as the user
   * spelled it: veritysetup's format prints {@code --hash} as given ({@code SHA256}), though the
   * superblock, and so dump, has it in lower case.
   */
  static String text(
      String hashDevice, VerityParams p, byte[] rootHash, Fec fec, String algorithm) {
    MerkleLayout g = MerkleLayout.dmVerity(p);
    StringBuilder s = new StringBuilder();
    s.append("VERITY header information for ").append(hashDevice).append('\n');
    s.append("UUID:            \t").append(p.uuid() == null ? "" : p.uuid()).append('\n');
    s.append("Hash type:       \t").append(p.hashFormat().code()).append('\n');
    s.append("Data blocks:     \t").append(p.dataBlocks()).append('\n');
    s.append("Data block size: \t").append(p.dataBlockSize()).append('\n');
    s.append("Hash blocks:     \t").append(g.hashBlocks()).append('\n');
    s.append("Hash block size: \t").append(p.hashBlockSize()).append('\n');
    s.append("Hash algorithm:  \t").append(algorithm).append('\n');
    if (fec != null) {
      s.append("FEC RS roots:   \t").append(fec.layout().roots()).append('\n');
      s.append("FEC blocks:     \t").append(fec.layout().parityBlocks()).append('\n');
    }
    s.append("Salt:            \t").append(ParamsResolver.saltText(p.salt())).append('\n');
    if (rootHash != null) {
      s.append("Root hash:      \t").append(Hex.format(rootHash)).append('\n');
    }
    if (p.hashOffset() == 0) {
      long size = g.hashDeviceSize();
      if (fec != null && fec.onHashDevice()) {
        size += fec.layout().parityBlocks() * p.hashBlockSize();
      }
      s.append("Hash device size: \t").append(size).append(" [bytes]\n");
    }
    if (fec != null && !fec.onHashDevice() && fec.layout().fecOffset() == 0) {
      s.append("FEC device size: \t").append(fec.layout().paritySize()).append(" [bytes]\n");
    }
    return s.toString();
  }

  /**
   * veritysetup's lines for a superblock whose hash algorithm jverity cannot compute: every field
   * the superblock stores. "Hash blocks" and "Hash device size" depend on the digest size, which
   * only the algorithm knows, and are left out.
   */
  static String text(String hashDevice, VeritySuperblock sb) {
    return "VERITY header information for "
        + hashDevice
        + "\n"
        + "UUID:            \t"
        + sb.uuid()
        + "\n"
        + "Hash type:       \t"
        + sb.hashFormat().code()
        + "\n"
        + "Data blocks:     \t"
        + sb.dataBlocks()
        + "\n"
        + "Data block size: \t"
        + sb.dataBlockSize()
        + "\n"
        + "Hash block size: \t"
        + sb.hashBlockSize()
        + "\n"
        + "Hash algorithm:  \t"
        + sb.algorithm()
        + "\n"
        + "Salt:            \t"
        + ParamsResolver.saltText(sb.salt())
        + "\n";
  }

  /** The JSON of {@link #text(String, VeritySuperblock)}: the stored fields, no layout. */
  static Map<String, Object> json(String hashDevice, VeritySuperblock sb, long hashOffset) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("hashDevice", hashDevice);
    m.put("uuid", sb.uuid().toString());
    m.put("hashType", sb.hashFormat().code());
    m.put("hashAlgorithm", sb.algorithm());
    m.put("hashAlgorithmSupported", false);
    m.put("dataBlocks", sb.dataBlocks());
    m.put("dataBlockSize", sb.dataBlockSize());
    m.put("dataSize", sb.dataBlocks() * sb.dataBlockSize()); // cannot overflow: checked by decode
    m.put("hashBlockSize", sb.hashBlockSize());
    m.put("salt", ParamsResolver.saltText(sb.salt()));
    m.put("superblock", true);
    m.put("hashOffset", hashOffset);
    return m;
  }

  /**
   * jverity's one line after veritysetup's: the image identity, which {@code verify} and {@code
   * read} take in place of the root hash.
   */
  static String identityLine(ImageIdentity id) {
    return "Identity:        \t" + id + "\n";
  }

  /** Everything a build script needs, so it does no arithmetic of its own. Offsets in bytes. */
  static Map<String, Object> json(
      String dataDevice, String hashDevice, VerityParams p, byte[] rootHash) {
    return json(dataDevice, hashDevice, p, rootHash, null);
  }

  /**
   * As {@link #json(String, String, VerityParams, byte[])}, with a "fec" object when {@code fec} is
   * not null.
   */
  static Map<String, Object> json(
      String dataDevice, String hashDevice, VerityParams p, byte[] rootHash, Fec fec) {
    MerkleLayout g = MerkleLayout.dmVerity(p);
    Map<String, Object> m = new LinkedHashMap<>();
    if (dataDevice != null) {
      m.put("dataDevice", dataDevice);
    }
    m.put("hashDevice", hashDevice);
    m.put("uuid", p.uuid() == null ? null : p.uuid().toString());
    m.put("hashType", p.hashFormat().code());
    m.put("hashAlgorithm", p.hashAlgorithm().kernelName());
    m.put("dataBlocks", p.dataBlocks());
    m.put("dataBlockSize", p.dataBlockSize());
    m.put("dataSize", p.dataSize());
    m.put("hashBlocks", g.hashBlocks());
    m.put("hashBlockSize", p.hashBlockSize());
    m.put("salt", ParamsResolver.saltText(p.salt()));
    if (rootHash != null) {
      m.put("rootHash", Hex.format(rootHash));
      m.put("identity", ImageIdentity.of(p, rootHash).toString());
    }
    m.put("superblock", p.superblock());
    m.put("hashOffset", p.hashOffset());
    m.put("hashStart", g.treeOffset());
    m.put("hashStartBlock", g.firstHashBlock());
    m.put("hashAreaSize", g.treeSize());
    m.put("hashDeviceSize", g.hashDeviceSize());
    List<Object> levels = new ArrayList<>();
    for (int i = 0; i < g.levels(); i++) {
      Map<String, Object> l = new LinkedHashMap<>();
      l.put("level", i);
      l.put("offset", g.levelStart(i) * p.hashBlockSize());
      l.put("blocks", g.levelBlocks(i));
      l.put("size", g.levelBlocks(i) * p.hashBlockSize());
      levels.add(l);
    }
    m.put("levels", levels);
    if (fec != null) {
      FecLayout f = fec.layout();
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("device", fec.device());
      o.put("roots", f.roots());
      o.put("offset", f.fecOffset());
      o.put("size", f.paritySize());
      o.put("blocks", f.parityBlocks());
      o.put("rounds", f.rounds());
      o.put("messageBlocks", f.messageBlocks());
      o.put("hashDeviceBlocks", f.hashBlocks());
      o.put("onHashDevice", fec.onHashDevice());
      m.put("fec", o);
    }
    return m;
  }
}
