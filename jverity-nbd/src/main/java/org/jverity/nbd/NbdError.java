package org.jverity.nbd;

/** The error values of replies, with their wire codes (errno numbers of Linux). */
enum NbdError {
  EPERM(1),
  EIO(5),
  ENOMEM(12),
  EINVAL(22),
  ENOSPC(28),
  EOVERFLOW(75),
  ENOTSUP(95),
  ESHUTDOWN(108);

  final int wire;

  NbdError(int wire) {
    this.wire = wire;
  }
}
