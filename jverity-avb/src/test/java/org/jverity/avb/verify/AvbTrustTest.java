package org.jverity.avb.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.avb.AvbPublicKey;

/** What is trusted for a vbmeta, and --expected_chain_partition as it is parsed. */
class AvbTrustTest {
  @TempDir Path dir;

  @Test
  void unsignedAcceptsNoKeyAndAKeyFileOrBlobTrustsThatKey() throws IOException {
    AvbTrust none = AvbTrust.unsigned();
    assertThat(none.acceptUnsigned()).isTrue();
    assertThat(none.hasKey()).isFalse();
    Path pem = AvbFixtures.keyFile("testkey_rsa2048.pem");
    byte[] blob = AvbPublicKey.readBlob(pem);
    Path blobFile = Files.write(dir.resolve("key.avbpubkey"), blob);
    for (Path p : new Path[] {pem, blobFile}) {
      AvbTrust t = AvbTrust.key(AvbPublicKey.readBlob(p));
      assertThat(t.acceptUnsigned()).isFalse();
      assertThat(t.trusts(blob)).isTrue();
      assertThat(t.trusts(AvbPublicKey.readBlob(AvbFixtures.keyFile("testkey_rsa4096.pem"))))
          .isFalse();
      assertThat(t).isEqualTo(AvbTrust.key(blob));
    }
    assertThatThrownBy(() -> new AvbTrust(new byte[0], false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> AvbTrust.key(new byte[0]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anExpectedChainPartitionIsNameLocationAndKeyFile() throws IOException {
    Path pem = AvbFixtures.keyFile("testkey_rsa4096.pem");
    ExpectedChain c = ExpectedChain.parse("system:2:" + pem);
    assertThat(c.partitionName()).isEqualTo("system");
    assertThat(c.rollbackIndexLocation()).isEqualTo(2);
    assertThat(c.publicKey()).isEqualTo(AvbPublicKey.readBlob(pem));
    assertThatThrownBy(() -> ExpectedChain.parse("system:2"))
        .hasMessage(
            "--expected_chain_partition system:2 (expected: NAME:ROLLBACK_INDEX_LOCATION:KEY_FILE)");
    assertThatThrownBy(() -> ExpectedChain.parse("system:x:" + pem))
        .hasMessageContaining("location x (expected: a number)");
    assertThatThrownBy(() -> ExpectedChain.parse("system:0:" + pem))
        .hasMessageContaining("location 0 (expected: at least 1)");
  }
}
