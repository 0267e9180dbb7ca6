package org.jverity.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.syntax.BadValue;
import org.jverity.cli.syntax.ByteSize;
import org.jverity.cli.syntax.Syntax;
import org.jverity.image.DeviceSource;
import org.jverity.remote.RemoteOptions;
import org.jverity.remote.RemoteSource;

/** The remote options parsed, made {@link RemoteOptions}, and refused when bad. */
class RemoteArgumentsTest {
  private static final Syntax<RemoteArguments> SYNTAX =
      Syntax.command("t", "", RemoteArguments::new).include(RemoteArguments.SYNTAX, r -> r);

  private static RemoteArguments parse(String... args) {
    return SYNTAX.parse(List.of(args), Syntax.<Object>group(), new Object()).target();
  }

  @TempDir Path dir;

  @Test
  void everyOptionReachesTheRemoteOptions() throws Exception {
    Path ca = Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
    RemoteArguments a =
        parse(
            "--cache-dir",
            "/var/cache/jv",
            "--cache-max",
            "1G",
            "--ca-cert",
            ca.toString(),
            "--s3-endpoint",
            "http://127.0.0.1:9000",
            "--on-change",
            "reopen");
    RemoteOptions o = RemoteDevices.options(a);
    assertThat(o.cacheDir()).isEqualTo(Path.of("/var/cache/jv"));
    assertThat(o.cacheMax()).isEqualTo(1L << 30);
    assertThat(o.caCert()).isEqualTo(ca);
    assertThat(o.s3Endpoint()).isEqualTo("http://127.0.0.1:9000");
    assertThat(o.onChange()).isEqualTo(RemoteOptions.OnChange.REOPEN);
    // what no option names stays as the defaults say
    assertThat(o.chunkSize()).isEqualTo(RemoteOptions.DEFAULTS.chunkSize());
    assertThat(o.retries()).isEqualTo(RemoteOptions.DEFAULTS.retries());
  }

  @Test
  void noOptionsAreTheDefaults() {
    assertThat(RemoteDevices.options(parse())).isEqualTo(RemoteOptions.DEFAULTS);
    assertThat(RemoteDevices.options(parse("--on-change", "fail")).onChange())
        .isEqualTo(RemoteOptions.OnChange.FAIL);
    assertThat(RemoteDevices.options(parse("--cache-max", "1M")).cacheDir()).isNull();
  }

  @Test
  void theHelpsDefaultIsTheDefault() {
    assertThat(ByteSize.parse(RemoteArguments.DEFAULT_CACHE_MAX))
        .isEqualTo(RemoteOptions.DEFAULTS.cacheMax());
  }

  @Test
  void badValuesAreRefusedNamingOptionAndValue() {
    assertThatThrownBy(() -> parse("--on-change", "sometimes"))
        .isInstanceOf(BadValue.class)
        .hasMessage("--on-change: sometimes (expected: fail or reopen)");
    assertThatThrownBy(() -> parse("--cache-max", "0"))
        .hasMessage("--cache-max: 0 (expected: at least 1 byte)");
    assertThatThrownBy(() -> parse("--cache-max", "1X"))
        .hasMessage("--cache-max: 1X (expected: " + ByteSize.EXPECTED + ")");
    assertThatThrownBy(() -> parse("--s3-endpoint", "127.0.0.1:9000"))
        .hasMessage("--s3-endpoint: 127.0.0.1:9000 (expected: an http:// or https:// URL)");
    assertThatThrownBy(() -> parse("--cache-dir", "")).isInstanceOf(BadValue.class);
  }

  @Test
  void aConfigSectionOverridesGenericKeyByKey() {
    RemoteArguments generic = parse("--cache-dir", "/c", "--cache-max", "2M");
    RemoteArguments export = parse("--cache-max", "3M", "--on-change", "reopen");
    RemoteArguments merged = RemoteArguments.over(generic, export);
    assertThat(merged.cacheDir).isEqualTo(Path.of("/c"));
    assertThat(merged.cacheMax).isEqualTo(3L << 20);
    assertThat(merged.reopen).isTrue();
    assertThat(merged.s3Endpoint).isNull();
  }

  @Test
  void localLocationsKeepTheLocalSourceAndAUrlGetsARemoteOne() {
    RemoteArguments a = parse("--cache-max", "1M");
    assertThat(a.source(DeviceSource.LOCAL, "d.img", "d.hash", null)).isSameAs(DeviceSource.LOCAL);
    DeviceSource s = a.source(DeviceSource.LOCAL, "d.img", "https://h/d.hash");
    try {
      assertThat(s).isInstanceOf(RemoteSource.class);
      assertThat(((RemoteSource) s).options().cacheMax()).isEqualTo(1L << 20);
    } finally {
      RemoteArguments.close(s);
    }
  }

  @Test
  void aMissingCaCertIsRefusedBeforeAnythingIsFetched() {
    RemoteArguments a = parse("--ca-cert", dir.resolve("none.pem").toString());
    assertThatThrownBy(() -> a.source(DeviceSource.LOCAL, "https://h/d.img"))
        .hasMessageEndingWith("none.pem: CA certificate file does not exist");
    assertThat(a.source(DeviceSource.LOCAL, "d.img")).isSameAs(DeviceSource.LOCAL);
  }
}
