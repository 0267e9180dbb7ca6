package org.jverity.avb.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.hashtree.AvbTreeGeometry;
import org.jverity.hash.HashAlgorithm;

/** Each number of a hashtree descriptor against the others and the image, one refusal each. */
class CheckedHashtreeTest {
  private static final long SIZE = 1 << 20;
  private static final AvbTreeGeometry G = AvbTreeGeometry.of(SIZE, 4096, HashAlgorithm.SHA256, 2);
  private static final long END = G.end() + 8192; // where the vbmeta starts

  /** The consistent descriptor of a 1 MiB sha256 image with FEC, one field replaced. */
  private static HashtreeDescriptor with(String field, long value) {
    return new HashtreeDescriptor(
        field.equals("version") ? (int) value : 1,
        field.equals("image_size") ? value : SIZE,
        field.equals("tree_offset") ? value : SIZE,
        field.equals("tree_size") ? value : G.treeSize(),
        field.equals("data_block_size") ? (int) value : 4096,
        field.equals("hash_block_size") ? (int) value : 4096,
        field.equals("fec_num_roots") ? (int) value : 2,
        field.equals("fec_offset") ? value : G.fecOffset(),
        field.equals("fec_size") ? value : G.fecSize(),
        "sha256",
        "system",
        new byte[32],
        new byte[field.equals("root_len") ? (int) value : 32],
        0);
  }

  @Test
  void aConsistentDescriptorPasses() throws AvbVerificationException {
    CheckedHashtree c = CheckedHashtree.check("w", with("", 0), END);
    assertThat(c.geometry()).isEqualTo(G);
    assertThat(c.treePresent()).isTrue();
    // fec_size 0 is no FEC whatever fec_num_roots says (avbtool's --no_hashtree quirk)
    CheckedHashtree noFec = CheckedHashtree.check("w", with("fec_size", 0), END);
    assertThat(noFec.geometry().fecRoots()).isZero();
    CheckedHashtree noTree = CheckedHashtree.check("w", with("tree_size", 0), END);
    assertThat(noTree.treePresent()).isFalse();
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "version | 0 | dm_verity_version 0 (expected: 1",
        "root_len | 20 | root digest of 20 bytes (expected: 32",
        "root_len | 0 | no root digest (a persistent digest",
        "hash_block_size | 1024 | hash_block_size 1024 (expected: the data_block_size, 4096",
        "image_size | 1000 | image_size 1000 (expected: a positive multiple",
        "tree_offset | 2097152 | tree_offset 2097152 (expected: image_size, 1048576",
        "tree_size | 4096 | tree_size 4096 (expected: 12288",
        "fec_num_roots | 25 | fec_num_roots 25 (expected: 2 to 24)",
        "fec_offset | 1064960 | fec_offset 1064960 (expected: 1060864",
        "fec_size | 4096 | fec_size 4096 (expected: 16384",
      })
  void anInconsistentFieldIsRefusedNamingIt(String field, long value, String message) {
    assertThatThrownBy(() -> CheckedHashtree.check("system.img", with(field, value), END))
        .isInstanceOf(AvbVerificationException.class)
        .hasMessageStartingWith("system.img: " + message);
  }

  @Test
  void blockSizesOutsideVeritysetupsRangeAreRefused() {
    HashtreeDescriptor d =
        new HashtreeDescriptor(
            1, 6000, 6000, 0, 3000, 3000, 0, 0, 0, "sha256", "s", new byte[0], new byte[32], 0);
    assertThatThrownBy(() -> CheckedHashtree.check("w", d, 1 << 20))
        .hasMessageContaining("data_block_size 3000 (expected: a power of two from 512 to 524288");
  }

  @Test
  void aTreeOrFecPastTheVbmetaIsRefused() {
    assertThatThrownBy(() -> CheckedHashtree.check("w", with("", 0), SIZE + 4096))
        .hasMessageContaining("tree [1048576, 1060864) (expected: before the vbmeta");
    assertThatThrownBy(() -> CheckedHashtree.check("w", with("", 0), G.fecOffset() + 100))
        .hasMessageContaining("FEC [1060864, 1077248) (expected: before the vbmeta");
  }

  @Test
  void onlyTheHashesLibavbTakesAreAccepted() {
    assertThatThrownBy(() -> CheckedHashtree.algorithm("w", "blake2b-256"))
        .hasMessage(
            "w: hash algorithm blake2b-256 (expected: sha1, sha256 or sha512, the ones"
                + " libavb takes for a hashtree)");
    assertThatThrownBy(() -> CheckedHashtree.algorithm("w", "sha384"))
        .hasMessageContaining("sha384");
  }
}
