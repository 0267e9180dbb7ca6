package org.jverity.avb.tool;

import java.util.List;
import org.jverity.avb.AvbVerificationException;
import org.jverity.avb.HashtreeDescriptor;
import org.jverity.avb.KernelCmdlineDescriptor;
import org.jverity.avb.verify.DmVerityTable;

/**
 * The two kernel-cmdline descriptors avbtool's {@code --setup_rootfs_from_kernel} and {@code
 * --setup_as_rootfs_from_kernel} add for a hashtree (avbtool's {@code
 * _get_cmdline_descriptors_for_hashtree_descriptor}, AVB.md 4.4): the {@code dm=} table used while
 * the hashtree is enabled (flag 1), and {@code root=} the partition itself when it is disabled
 * (flag 2). The texts are {@link DmVerityTable}'s.
 */
final class DmVerityCmdline {
  private DmVerityCmdline() {}

  /**
   * @param where names the descriptor in a refusal
   * @throws AvbVerificationException when the descriptor's numbers make no table (DmVerityTable)
   */
  static List<KernelCmdlineDescriptor> descriptors(String where, HashtreeDescriptor ht)
      throws AvbVerificationException {
    return List.of(
        new KernelCmdlineDescriptor(
            KernelCmdlineDescriptor.FLAG_USE_ONLY_IF_HASHTREE_NOT_DISABLED,
            DmVerityTable.of(where, ht).avbtoolCmdline()),
        new KernelCmdlineDescriptor(
            KernelCmdlineDescriptor.FLAG_USE_ONLY_IF_HASHTREE_DISABLED,
            DmVerityTable.AVBTOOL_CMDLINE_HASHTREE_DISABLED));
  }
}
