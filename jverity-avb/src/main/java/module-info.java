/**
 * Android Verified Boot 2.0: the AvbFooter, vbmeta images and their descriptors, the public-key
 * blob and signing, libavb's checks, and the hashtree and FEC appended to a partition image, built
 * and checked by the core's tree and FEC code (an AVB tree is a dm-verity v1 tree without a
 * superblock). Depends on the core and jverity-sig (PEM keys).
 */
module org.jverity.avb {
  requires transitive org.jverity.core;
  requires org.jverity.sig;

  exports org.jverity.avb;
  exports org.jverity.avb.hashtree;
  exports org.jverity.avb.verify;
  exports org.jverity.avb.tool;
}
