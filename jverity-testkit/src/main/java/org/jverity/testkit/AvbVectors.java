package org.jverity.testkit;

/** Known answers from {@code ../shared/AVB.md} that more than one module's tests check. */
public final class AvbVectors {
  private AvbVectors() {}

  /**
   * AVB.md 6: avbtool 1.3.0's {@code info_image} of the 1 MiB pattern image ({@code i & 0xff})
   * given a sha1 hashtree footer without FEC, unsigned, salt 00 01 .. 1f, in a 2 MiB partition.
   */
  public static final String INFO_IMAGE_SAMPLE =
      """
      Footer version:           1.0
      Image size:               2097152 bytes
      Original image size:      1048576 bytes
      VBMeta offset:            1060864
      VBMeta size:              512 bytes
      --
      Minimum libavb version:   1.0
      Header Block:             256 bytes
      Authentication Block:     0 bytes
      Auxiliary Block:          256 bytes
      Algorithm:                NONE
      Rollback Index:           0
      Flags:                    0
      Rollback Index Location:  0
      Release String:           'avbtool 1.3.0'
      Descriptors:
          Hashtree descriptor:
            Version of dm-verity:  1
            Image Size:            1048576 bytes
            Tree Offset:           1048576
            Tree Size:             12288 bytes
            Data Block Size:       4096 bytes
            Hash Block Size:       4096 bytes
            FEC num roots:         0
            FEC offset:            0
            FEC size:              0 bytes
            Hash Algorithm:        sha1
            Partition Name:        system
            Salt:                  000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
            Root Digest:           2b9c1718a693d97fc700e65dc9dbc654a4e62671
            Flags:                 0
      """;
}
