package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The option enum is open: every known code maps back to its option, any other code to UNKNOWN. */
class NbdOptionTest {
  @Test
  void knownCodesRoundTrip() {
    for (NbdOption o : NbdOption.values()) {
      if (o != NbdOption.UNKNOWN) {
        assertThat(NbdOption.fromWire(o.wire)).isSameAs(o);
      }
    }
    assertThat(NbdOption.GO.wire).isEqualTo(7);
  }

  @Test
  void otherCodesAreUnknown() {
    for (int code : new int[] {0, 4, 11, 12, 99, -1, Integer.MIN_VALUE}) {
      assertThat(NbdOption.fromWire(code)).as("code %d", code).isSameAs(NbdOption.UNKNOWN);
    }
  }
}
