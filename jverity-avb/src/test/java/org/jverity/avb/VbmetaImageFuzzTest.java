package org.jverity.avb;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jverity.io.MemoryDevice;
import org.jverity.testkit.ParserContract;

/**
 * Any bytes as a vbmeta blob (header, blocks, descriptors, key, signature): a parsed image whose
 * signature check returns or throws {@link AvbVerificationException} and whose info_image text
 * prints, or one {@link AvbFormatException}; never a length from the input sizing an allocation.
 */
class VbmetaImageFuzzTest {
  @FuzzTest(maxDuration = "2m")
  void parsesOrRefuses(byte[] bytes) {
    ParserContract.holds(
        bytes.length,
        () -> {
          VbmetaImage image = VbmetaImage.parse(bytes);
          InfoImage.format(null, bytes.length, image);
          image.publicKey();
          image.publicKeyMetadata();
          image.verifySignature();
        },
        AvbFormatException.class,
        AvbVerificationException.class);
    ParserContract.holds(
        bytes.length,
        () -> VbmetaImage.read(new MemoryDevice("fuzz.img", bytes), null),
        AvbFormatException.class);
  }
}
