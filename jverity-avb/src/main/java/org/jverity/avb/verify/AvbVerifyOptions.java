package org.jverity.avb.verify;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What {@link AvbVerifier} is told: the options of {@code verify_image}, and what a device knows
 * that an image cannot say (its stored rollback indexes, which file holds which partition).
 *
 * @param trustedKey the key blob the top-level vbmeta must be signed by; null: the key it embeds is
 *     accepted, as avbtool does without {@code --key} (and says so)
 * @param trustedKeyName how the trusted key is named in the output ({@code --key}'s path)
 * @param expectedChains by partition name: what the chain descriptors must say
 * @param followChains whether chained images are verified too ({@code --follow_chain_partitions})
 * @param images by partition name: the file holding it; a partition not named is looked for beside
 *     the image, as {@code <name><ext of the image>} (avbtool's rule); the top-level image's own
 *     descriptors are always checked against the image itself
 * @param acceptZeroedHashtree whether a tree {@code zero_hashtree} zeroed passes
 * @param acceptUnsigned whether an unsigned vbmeta (algorithm NONE) passes, as on an unlocked
 *     device
 * @param rollbackIndexes by rollback index location: the stored index, which an image's must not be
 *     below (locations not named: 0)
 * @param threads hashing threads; 0 for one per core
 * @param progress shown while partitions are hashed
 */
public record AvbVerifyOptions(
    byte[] trustedKey,
    String trustedKeyName,
    Map<String, ExpectedChain> expectedChains,
    boolean followChains,
    Map<String, Path> images,
    boolean acceptZeroedHashtree,
    boolean acceptUnsigned,
    Map<Integer, Long> rollbackIndexes,
    int threads,
    VerifyProgress progress) {

  public AvbVerifyOptions {
    trustedKey = trustedKey == null ? null : trustedKey.clone();
    if (trustedKey != null) {
      Objects.requireNonNull(trustedKeyName, "trustedKeyName");
    }
    expectedChains = Map.copyOf(expectedChains);
    images = Map.copyOf(images);
    rollbackIndexes = Map.copyOf(rollbackIndexes);
    if (threads < 0) {
      throw new IllegalArgumentException("threads: " + threads + " (expected: 0 or more)");
    }
    Objects.requireNonNull(progress, "progress");
  }

  @Override
  public byte[] trustedKey() {
    return trustedKey == null ? null : trustedKey.clone();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Mutable; defaults: the embedded key, no chains expected or followed, nothing accepted, no
   * progress shown.
   */
  public static final class Builder {
    private byte[] trustedKey;
    private String trustedKeyName;
    private final Map<String, ExpectedChain> expectedChains = new LinkedHashMap<>();
    private boolean followChains;
    private final Map<String, Path> images = new LinkedHashMap<>();
    private boolean acceptZeroedHashtree;
    private boolean acceptUnsigned;
    private final Map<Integer, Long> rollbackIndexes = new LinkedHashMap<>();
    private int threads;
    private VerifyProgress progress = VerifyProgress.NONE;

    private Builder() {}

    /** {@code --key}: the blob, and the name the output gives it (the key file's path). */
    public Builder trustedKey(byte[] blob, String name) {
      trustedKey = blob.clone();
      trustedKeyName = Objects.requireNonNull(name, "name");
      return this;
    }

    public Builder expectChain(ExpectedChain chain) {
      expectedChains.put(chain.partitionName(), chain);
      return this;
    }

    public Builder followChains(boolean v) {
      followChains = v;
      return this;
    }

    /** The file that holds partition {@code name}. */
    public Builder image(String name, Path file) {
      images.put(name, file);
      return this;
    }

    public Builder acceptZeroedHashtree(boolean v) {
      acceptZeroedHashtree = v;
      return this;
    }

    public Builder acceptUnsigned(boolean v) {
      acceptUnsigned = v;
      return this;
    }

    /** The device's stored rollback index at {@code location}. */
    public Builder rollbackIndex(int location, long stored) {
      rollbackIndexes.put(location, stored);
      return this;
    }

    public Builder threads(int v) {
      threads = v;
      return this;
    }

    public Builder progress(VerifyProgress v) {
      progress = Objects.requireNonNull(v, "progress");
      return this;
    }

    public AvbVerifyOptions build() {
      return new AvbVerifyOptions(
          trustedKey,
          trustedKeyName,
          expectedChains,
          followChains,
          images,
          acceptZeroedHashtree,
          acceptUnsigned,
          rollbackIndexes,
          threads,
          progress);
    }
  }
}
