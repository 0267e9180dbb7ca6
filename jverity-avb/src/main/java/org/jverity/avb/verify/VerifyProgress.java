package org.jverity.avb.verify;

import org.jverity.tree.ProgressListener;

/**
 * How {@link AvbVerifier} shows its long steps, one at a time: each hashtree checked (data, tree
 * and FEC), each hash descriptor's digest. The verifier prints a line when a step ends; a bar that
 * stays after it would sit between those lines, so a step's view is closed, not finished.
 */
@FunctionalInterface
public interface VerifyProgress {
  VerifyProgress NONE = (what, bytes) -> Step.NONE;

  /**
   * A step begins.
   *
   * @param what the partition, and what is done to it
   * @param bytes the bytes the step reports to the returned listener when it completes
   */
  Step begin(String what, long bytes);

  /** One step's view: told the bytes done, from worker threads; closed when the step ends. */
  interface Step extends ProgressListener, AutoCloseable {
    Step NONE =
        new Step() {
          @Override
          public void advanced(long bytes) {}

          @Override
          public void close() {}
        };

    @Override
    void close();
  }
}
