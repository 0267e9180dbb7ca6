package org.jverity.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** SpaceKey's written-out equals and hashCode: equal only when every field is. */
class SpaceKeyTest {
  private static final SpaceKey KEY =
      new SpaceKey("h", 4096, 4096, 32, 32, 1 << 20, "levels", "sha256", "ab");

  @Test
  void equalWhenEveryFieldIsAndUnequalWhenAnyOneDiffers() {
    SpaceKey same = new SpaceKey("h", 4096, 4096, 32, 32, 1 << 20, "levels", "sha256", "ab");
    assertThat(same).isEqualTo(KEY).hasSameHashCodeAs(KEY);
    List<SpaceKey> others =
        List.of(
            new SpaceKey("g", 4096, 4096, 32, 32, 1 << 20, "levels", "sha256", "ab"),
            new SpaceKey("h", 1024, 4096, 32, 32, 1 << 20, "levels", "sha256", "ab"),
            new SpaceKey("h", 4096, 1024, 32, 32, 1 << 20, "levels", "sha256", "ab"),
            new SpaceKey("h", 4096, 4096, 20, 32, 1 << 20, "levels", "sha256", "ab"),
            new SpaceKey("h", 4096, 4096, 32, 20, 1 << 20, "levels", "sha256", "ab"),
            new SpaceKey("h", 4096, 4096, 32, 32, 1 << 21, "levels", "sha256", "ab"),
            new SpaceKey("h", 4096, 4096, 32, 32, 1 << 20, "other", "sha256", "ab"),
            new SpaceKey("h", 4096, 4096, 32, 32, 1 << 20, "levels", "sha1", "ab"),
            new SpaceKey("h", 4096, 4096, 32, 32, 1 << 20, "levels", "sha256", "cd"));
    for (SpaceKey o : others) {
      assertThat(o).isNotEqualTo(KEY);
      assertThat(KEY).isNotEqualTo(o);
    }
    assertThat(others.stream().map(SpaceKey::hashCode).distinct()).hasSize(others.size());
    assertThat(KEY).isNotEqualTo("h");
  }
}
