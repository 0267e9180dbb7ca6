package org.jverity.ddi;

import java.nio.file.Path;
import java.util.Objects;
import org.jverity.format.VerityParams;
import org.jverity.tree.CheckReport;

/**
 * What {@link DdiVerifier} found for one data partition. Immutable.
 *
 * @param choice the partitions checked
 * @param params the verity superblock's parameters
 * @param certificate the trusted certificate's file that the signature matched; null when unsigned
 * @param check the full tree check of the data partition against its verity partition
 */
public record VerifyReport(
    Choice choice, VerityParams params, Path certificate, CheckReport check) {
  public VerifyReport {
    Objects.requireNonNull(choice, "choice");
    Objects.requireNonNull(params, "params");
    Objects.requireNonNull(check, "check");
  }

  public boolean ok() {
    return check.ok();
  }
}
