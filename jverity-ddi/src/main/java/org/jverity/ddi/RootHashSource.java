package org.jverity.ddi;

/**
 * Where a root hash came from, in systemd-dissect's order of precedence: given on the command line,
 * a sidecar file next to the image, or a signature partition's JSON.
 */
public enum RootHashSource {
  OPTION("the command line"),
  SIDECAR("a sidecar file"),
  SIGNATURE_PARTITION("the signature partition");

  private final String phrase;

  RootHashSource(String phrase) {
    this.phrase = phrase;
  }

  /** As inspect says it: "from the signature partition". */
  public String phrase() {
    return phrase;
  }
}
