/**
 * systemd's Discoverable Disk Images: the GPT (read with its limits checked, written with its
 * backup), the Discoverable Partitions Specification's type UUIDs as data, the verity signature
 * partition's JSON, a DDI built in a plain file from a file system image, and what {@code
 * systemd-dissect} would use from one. Depends on the core (trees, superblocks, devices) and
 * jverity-sig (the root hash's PKCS#7).
 */
module org.jverity.ddi {
  requires transitive org.jverity.core;
  requires transitive org.jverity.sig;

  exports org.jverity.ddi;
  exports org.jverity.ddi.gpt;
}
