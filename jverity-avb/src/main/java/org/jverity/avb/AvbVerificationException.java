package org.jverity.avb;

import java.io.IOException;

/**
 * A vbmeta or partition that is well formed but that a device would refuse: a hash or signature
 * that does not match, an untrusted key, a broken rule of libavb's. The message is one line saying
 * why.
 */
public class AvbVerificationException extends IOException {
  public AvbVerificationException(String message) {
    super(message);
  }
}
