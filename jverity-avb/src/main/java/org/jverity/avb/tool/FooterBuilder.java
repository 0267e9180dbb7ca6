package org.jverity.avb.tool;

import java.nio.file.Path;

/**
 * The options {@code add_hash_footer} and {@code add_hashtree_footer} share, each at avbtool's
 * default until set: the image and its partition, the descriptor's digest, its flags, and where the
 * vbmeta goes. Said once here, so that an option both commands take is added in one place; each
 * command's builder adds its own. Not thread-safe.
 *
 * @param <B> the command's builder, which each setter returns
 */
public abstract class FooterBuilder<B extends FooterBuilder<B>> {
  Path image;
  long partitionSize;
  String partitionName = "";
  String hashAlgorithm; // the command's default: sha256 for a hash, sha1 for a hashtree
  String salt; // null: random, as avbtool's
  boolean usePersistentDigest;
  boolean doNotUseAb;
  Path outputVbmetaImage;
  boolean doNotAppendVbmetaImage;
  VbmetaOptions vbmeta = VbmetaOptions.none();

  FooterBuilder(String defaultHash) {
    hashAlgorithm = defaultHash;
  }

  /** This builder, as its own type. */
  abstract B self();

  public B image(Path image) {
    this.image = image;
    return self();
  }

  public B partitionSize(long partitionSize) {
    this.partitionSize = partitionSize;
    return self();
  }

  public B partitionName(String partitionName) {
    this.partitionName = partitionName;
    return self();
  }

  public B hashAlgorithm(String hashAlgorithm) {
    this.hashAlgorithm = hashAlgorithm;
    return self();
  }

  public B salt(String salt) {
    this.salt = salt;
    return self();
  }

  public B usePersistentDigest(boolean usePersistentDigest) {
    this.usePersistentDigest = usePersistentDigest;
    return self();
  }

  public B doNotUseAb(boolean doNotUseAb) {
    this.doNotUseAb = doNotUseAb;
    return self();
  }

  public B outputVbmetaImage(Path outputVbmetaImage) {
    this.outputVbmetaImage = outputVbmetaImage;
    return self();
  }

  public B doNotAppendVbmetaImage(boolean doNotAppendVbmetaImage) {
    this.doNotAppendVbmetaImage = doNotAppendVbmetaImage;
    return self();
  }

  public B vbmeta(VbmetaOptions vbmeta) {
    this.vbmeta = vbmeta;
    return self();
  }
}
