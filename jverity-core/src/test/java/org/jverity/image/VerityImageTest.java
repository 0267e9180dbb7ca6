package org.jverity.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.SignatureException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.jverity.format.Hex;
import org.jverity.format.ImageIdentity;
import org.jverity.format.VerityParameterException;
import org.jverity.format.VerityParams;
import org.jverity.image.ConflictingOverridesException.Against;
import org.jverity.io.BlockDevice;
import org.jverity.io.DeviceTooSmallException;
import org.jverity.io.MemoryDevice;
import org.jverity.testing.DeviceWrapper;
import org.jverity.testing.TestImage;
import org.jverity.tree.Area;
import org.jverity.verify.BlockRepairer;
import org.jverity.verify.HashBlockCache;
import org.jverity.verify.IoClass;
import org.jverity.verify.ReaderOptions;
import org.jverity.verify.VerificationScheduler;

class VerityImageTest {
  /** Remembers whether it was closed, and refuses reads after. */
  static final class Tracked extends DeviceWrapper {
    boolean closed;

    Tracked(BlockDevice in) {
      super(in);
    }

    @Override
    protected void read(long offset, ByteBuffer dst) throws IOException {
      if (closed) {
        throw new IOException(description() + ": closed");
      }
      in.readFully(offset, dst);
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** Opens named memory devices, keeping each device it opened. */
  static final class Memory implements DeviceSource {
    final Map<String, byte[]> files = new HashMap<>();
    final List<Tracked> opened = new ArrayList<>();

    @Override
    public BlockDevice open(String location) throws IOException {
      byte[] bytes = files.get(location);
      if (bytes == null) {
        throw new IOException(location + ": no such device");
      }
      Tracked t = new Tracked(new MemoryDevice(location, bytes));
      opened.add(t);
      return t;
    }

    @Override
    public boolean same(String a, String b) {
      return a.equals(b);
    }

    boolean allClosed() {
      return opened.stream().allMatch(t -> t.closed);
    }
  }

  private static ParamOverrides everything(VerityParams p) {
    return new ParamOverrides(
        p.hashAlgorithm().toString(),
        (long) p.dataBlockSize(),
        (long) p.hashBlockSize(),
        p.dataBlocks(),
        null,
        ParamOverrides.saltText(p.salt()),
        null,
        null,
        true);
  }

  private static Memory source(TestImage img) {
    Memory m = new Memory();
    m.files.put("data", img.data());
    m.files.put("hash", img.hash());
    m.files.put("tiny", new byte[512]);
    return m;
  }

  @Test
  void overridesThatContradictTheIdentityComeBackAsValues() throws IOException {
    TestImage img = TestImage.random(8, 4096, 1);
    ParamOverrides o = everything(img.params());
    ParamOverrides wrong =
        new ParamOverrides(
            o.hashAlgorithm(),
            o.dataBlockSize(),
            o.hashBlockSize(),
            9L,
            null,
            null,
            null,
            null,
            true);
    String identity = ImageIdentity.of(img.params(), img.root()).toString();
    assertThatThrownBy(() -> TrustedRoot.resolve(wrong, img.hashDevice(), identity))
        .isInstanceOfSatisfying(
            ConflictingOverridesException.class,
            e -> {
              assertThat(e.against()).isEqualTo(Against.IDENTITY);
              assertThat(e.conflicts()).containsExactly(new ParamConflict("data blocks", "8", "9"));
            });
  }

  @Test
  void overridesWithoutASuperblockResolveAHexRoot() throws IOException {
    TestImage img = TestImage.random(8, 4096, 2);
    TrustedRoot t =
        TrustedRoot.resolve(everything(img.params()), img.hashDevice(), Hex.format(img.root()));
    assertThat(t.params()).isEqualTo(img.params());
    assertThat(t.rootHash()).isEqualTo(img.root());
  }

  @Test
  void aWrongRootLengthClosesBothDevices() throws IOException {
    TestImage img = TestImage.random(8, 4096, 3);
    Memory m = source(img);
    assertThatThrownBy(
            () ->
                VerityImage.open(
                    m, "data", "hash", everything(img.params()), "abcd", null, RootCheck.NONE))
        .isInstanceOf(VerityParameterException.class);
    assertThat(m.opened).hasSize(2);
    assertThat(m.allClosed()).isTrue();
  }

  @Test
  void aRefusedRootIsCheckedBeforeAnyReaderAndClosesBothDevices() throws IOException {
    TestImage img = TestImage.random(8, 4096, 4);
    Memory m = source(img);
    List<byte[]> checked = new ArrayList<>();
    RootCheck refuse =
        root -> {
          checked.add(root);
          throw new SignatureException("not signed");
        };
    assertThatThrownBy(
            () ->
                VerityImage.open(
                    m,
                    "data",
                    "hash",
                    everything(img.params()),
                    Hex.format(img.root()),
                    null,
                    refuse))
        .isInstanceOf(SignatureException.class);
    assertThat(checked).containsExactly(img.root());
    assertThat(m.allClosed()).isTrue();
  }

  @Test
  void aTooShortFecDeviceIsRefusedAndEverythingIsClosed() throws Exception {
    TestImage img = TestImage.random(8, 4096, 5);
    Memory m = source(img);
    VerityImage image =
        VerityImage.open(
            m,
            "data",
            "hash",
            everything(img.params()),
            Hex.format(img.root()),
            null,
            RootCheck.NONE);
    assertThatThrownBy(() -> image.fec(new FecSource("tiny", 0, 2)))
        .isInstanceOf(DeviceTooSmallException.class);
    assertThat(m.opened).hasSize(3);
    assertThat(m.allClosed()).isTrue();
  }

  @Test
  void theVerifiedImageReadsAndClosesWhatWasOpened() throws Exception {
    TestImage img = TestImage.random(8, 4096, 6);
    Memory m = source(img);
    byte[] got = new byte[4096];
    try (VerityImage image =
            VerityImage.open(
                m,
                "data",
                "hash",
                everything(img.params()),
                Hex.format(img.root()),
                null,
                RootCheck.NONE);
        VerifiedImage verified =
            image.reader(new HashBlockCache(1 << 20), ReaderOptions.DEFAULTS)) {
      verified.scheduler().read(4096, got, 0, got.length);
      assertThat(m.allClosed()).isFalse();
    }
    assertThat(got).isEqualTo(java.util.Arrays.copyOfRange(img.data(), 4096, 8192));
    assertThat(m.allClosed()).isTrue();
  }

  /**
   * A second scheduler over the image's reader keeps its own inline limits and counters, reads the
   * same verified bytes, and closes with the image, which refuses a new one after.
   */
  @Test
  void aSecondSchedulerSharesTheReaderAndClosesWithTheImage() throws Exception {
    TestImage img = TestImage.random(8, 4096, 7);
    Memory m = source(img);
    byte[] got = new byte[2 * 4096];
    VerifiedImage verified =
        VerityImage.open(
                m,
                "data",
                "hash",
                everything(img.params()),
                Hex.format(img.root()),
                null,
                RootCheck.NONE)
            .reader(new HashBlockCache(1 << 20), ReaderOptions.DEFAULTS);
    VerificationScheduler workers;
    try (verified) {
      workers = verified.newScheduler();
      for (IoClass c : IoClass.values()) {
        workers.setInlineLimit(c, 0);
      }
      workers.read(0, got, 0, got.length);
      assertThat(got).isEqualTo(java.util.Arrays.copyOf(img.data(), 2 * 4096));
      assertThat(workers.reader()).isSameAs(verified.reader());
      assertThat(workers.inlineRequests()).isZero();
      assertThat(workers.pooledRequests()).isPositive();
      assertThat(verified.scheduler().inlineLimit(IoClass.BEST_EFFORT)).isPositive();
      assertThat(verified.scheduler().pooledRequests()).isZero();
    }
    assertThat(m.allClosed()).isTrue();
    assertThatThrownBy(() -> workers.read(0, got, 0, 4096)).isInstanceOf(IOException.class);
    assertThatThrownBy(verified::newScheduler).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void theReporterTellsEachCorrectedBlockOnce() throws IOException {
    BlockRepairer fixes = (area, block, size, check) -> block == 7 ? null : new byte[size];
    List<String> told = new ArrayList<>();
    BlockRepairer once =
        CorrectionReporter.oncePerBlock(fixes, (area, block) -> told.add(area + " " + block));
    for (int i = 0; i < 3; i++) {
      once.repair(Area.DATA, 3, 16, c -> true);
      once.repair(Area.HASH, 3, 16, c -> true);
      once.repair(Area.DATA, 7, 16, c -> true);
    }
    assertThat(told).containsExactly("data 3", "hash 3");
    List<String> every = new ArrayList<>();
    BlockRepairer all =
        CorrectionReporter.everyTime(fixes, (area, block) -> every.add(area + " " + block));
    all.repair(Area.DATA, 3, 16, c -> true);
    all.repair(Area.DATA, 3, 16, c -> true);
    assertThat(every).containsExactly("data 3", "data 3");
  }
}
