package org.jverity.ddi.gpt;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;
import org.jverity.io.MemoryDevice;
import org.jverity.testkit.ParserContract;

/**
 * Any bytes as a disk image: a table whose partitions lie inside its usable sectors and do not
 * overlap, or one {@link GptFormatException}; the allocation bounded by the input, whatever its
 * header's entry count and size claim.
 */
class GptFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void readsOrRefuses(byte[] bytes) {
    ParserContract.holds(
        bytes.length,
        () -> {
          Gpt gpt = Gpt.read(new MemoryDevice("fuzz.raw", bytes));
          List<GptEntry> parts = gpt.partitions();
          for (GptEntry e : parts) {
            if (e.firstLba() < gpt.header().firstUsableLba()
                || e.lastLba() > gpt.header().lastUsableLba()
                || e.lastLba() >= gpt.sectors()) {
              throw new AssertionError("partition outside the usable sectors: " + e);
            }
          }
        },
        GptFormatException.class);
  }
}
