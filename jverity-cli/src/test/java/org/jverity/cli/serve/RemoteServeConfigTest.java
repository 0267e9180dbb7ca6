package org.jverity.cli.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.cli.FormattedImage;
import org.jverity.cli.command.CliException;
import org.jverity.remote.RemoteOptions;
import org.jverity.server.ExportConfig;

/** {@code serve}'s config with devices at URLs, and the remote keys per export or in [generic]. */
class RemoteServeConfigTest {
  @TempDir Path dir;
  private FormattedImage image;

  @BeforeEach
  void image() throws Exception {
    image = FormattedImage.create(dir, "disk", 8);
  }

  private ServeConfig read(String text) throws Exception {
    Path conf = Files.writeString(dir.resolve("serve.conf"), text);
    return ServeConfig.read(IniFile.parse(conf.toString(), text), dir, null);
  }

  @Test
  void urlsAreTakenAsTheyAreWithGenericsRemoteKeysUnderTheExports() throws Exception {
    ServeConfig c =
        read(
            """
            [remote]
            data = s3://bucket/disk.img
            hash = https://cdn.example/disk.hash
            fec-device = s3://bucket/disk.fec
            cache-max = 3M
            root-hash = %s
            [generic]
            cache-dir = cache
            cache-max = 2M
            on-change = reopen
            s3-endpoint = http://127.0.0.1:9000
            [local]
            data = disk.img
            hash = disk.hash
            root-hash = %s
            """
                .formatted(image.root(), image.root()));
    ExportConfig remote = c.exports().get(0);
    assertThat(remote.data()).isEqualTo("s3://bucket/disk.img");
    assertThat(remote.hash()).isEqualTo("https://cdn.example/disk.hash");
    assertThat(remote.fec().device()).isEqualTo("s3://bucket/disk.fec"); // no file checked
    RemoteOptions o = remote.remote();
    assertThat(o.cacheDir()).isEqualTo(dir.resolve("cache")); // relative to the config
    assertThat(o.cacheMax()).isEqualTo(3L << 20); // the export's own
    assertThat(o.onChange()).isEqualTo(RemoteOptions.OnChange.REOPEN);
    assertThat(o.s3Endpoint()).isEqualTo("http://127.0.0.1:9000");
    ExportConfig local = c.exports().get(1);
    assertThat(local.remote()).as("nothing remote for local files").isNull();
    assertThat(local.anyRemote()).isFalse();
  }

  @Test
  void aBadUrlOrRemoteValueNamesFileLineAndKey() {
    assertThatThrownBy(
            () ->
                read(
                    "[x]\ndata = s3://bucket\nhash = disk.hash\nroot-hash = "
                        + image.root()
                        + "\n"))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("serve.conf:2: data: s3://bucket (expected: ");
    assertThatThrownBy(
            () ->
                read(
                    "[x]\ndata = disk.img\nhash = disk.hash\non-change = never\nroot-hash = "
                        + image.root()
                        + "\n"))
        .isInstanceOf(CliException.class)
        .hasMessageEndingWith("serve.conf:4: on-change: never (expected: fail or reopen)");
  }
}
