package org.jverity.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.jverity.format.VerityParams;
import org.jverity.image.ParamOverrides;
import org.jverity.image.RootCheck;
import org.jverity.image.TrustedRoot;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.IoClass;

/** What a reloaded config changes, export by export. */
class ConfigChangesTest {
  private static ExportConfig export(String name, String data, ExportConfig.Signature sig) {
    return export(name, data, new ExportRoot.Given("ab".repeat(32), ParamOverrides.NONE), sig);
  }

  private static ExportConfig export(
      String name, String data, ExportRoot root, ExportConfig.Signature sig) {
    return new ExportConfig(
        name,
        null,
        data,
        data + ".hash",
        root,
        sig,
        CorruptionMode.EIO,
        false,
        false,
        false,
        IoClass.NONE,
        null,
        null,
        null);
  }

  private static Map<String, ExportConfig> byName(ExportConfig... all) {
    Map<String, ExportConfig> m = new LinkedHashMap<>();
    for (ExportConfig e : all) {
      m.put(e.name(), e);
    }
    return m;
  }

  @Test
  void namesAreAddedRemovedChangedOrUnchanged() {
    var before =
        byName(export("a", "a.img", null), export("b", "b.img", null), export("c", "c", null));
    var after =
        List.of(export("b", "other.img", null), export("a", "a.img", null), export("d", "d", null));
    ConfigChanges c = ConfigChanges.between(before, after);
    assertThat(c.added()).extracting(ExportConfig::name).containsExactly("d");
    assertThat(c.removed()).containsExactly("c");
    assertThat(c.changed()).extracting(ExportConfig::name).containsExactly("b");
    assertThat(c.unchanged()).containsExactly("a");
    assertThat(c.toOpen()).extracting(ExportConfig::name).containsExactly("d", "b");
    assertThat(c.summary()).isEqualTo("1 added, 1 removed, 1 changed, 1 unchanged");
    assertThat(c.none()).isFalse();
  }

  @Test
  void aSignatureIsComparedByItsFilesNotByTheCheckEachReadMakes() {
    RootCheck first = root -> {};
    RootCheck second = root -> {};
    var sig = new ExportConfig.Signature(Path.of("s.p7s"), List.of(Path.of("ca.pem")), first);
    var same = new ExportConfig.Signature(Path.of("s.p7s"), List.of(Path.of("ca.pem")), second);
    var other = new ExportConfig.Signature(Path.of("s.p7s"), List.of(Path.of("other.pem")), second);
    assertThat(ConfigChanges.same(export("a", "a", sig), export("a", "a", same))).isTrue();
    assertThat(ConfigChanges.same(export("a", "a", sig), export("a", "a", other))).isFalse();
    assertThat(ConfigChanges.same(export("a", "a", sig), export("a", "a", null))).isFalse();
    assertThat(
            ConfigChanges.between(byName(export("a", "a", sig)), List.of(export("a", "a", same)))
                .none())
        .isTrue();
  }

  @Test
  void aKnownRootIsComparedByValue() {
    VerityParams p = VerityParams.builder().dataBlocks(8).superblock(false).build();
    byte[] root = new byte[32];
    ExportConfig before = export("a", "a.img", new ExportRoot.Known(TrustedRoot.of(p, root)), null);
    ExportConfig same =
        export("a", "a.img", new ExportRoot.Known(TrustedRoot.of(p, root.clone())), null);
    root[0] = 1; // an image signed anew with another tree
    ExportConfig other = export("a", "a.img", new ExportRoot.Known(TrustedRoot.of(p, root)), null);
    assertThat(ConfigChanges.between(byName(before), List.of(same)).unchanged())
        .containsExactly("a");
    assertThat(ConfigChanges.between(byName(before), List.of(other)).changed())
        .containsExactly(other);
  }
}
