package org.jverity.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.jverity.format.DerivedIdentity;

class KernelRandomTest {
  @Test
  void givesTheBytesAskedForAndNeverTheSameTwice() {
    assertThat(KernelRandom.bytes(0)).isEmpty();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      byte[] b = KernelRandom.bytes(32);
      assertThat(b).hasSize(32);
      assertThat(seen.add(java.util.HexFormat.of().formatHex(b))).isTrue();
    }
  }

  @Test
  void uuidsAreVersion4OfTheIetfVariantAsRandomUuidMakesThem() {
    Set<UUID> seen = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      UUID u = DerivedIdentity.version4(KernelRandom.bytes(16));
      assertThat(u.version()).isEqualTo(4);
      assertThat(u.variant()).isEqualTo(UUID.randomUUID().variant()).isEqualTo(2);
      assertThat(UUID.fromString(u.toString())).isEqualTo(u);
      assertThat(seen.add(u)).isTrue();
    }
  }
}
