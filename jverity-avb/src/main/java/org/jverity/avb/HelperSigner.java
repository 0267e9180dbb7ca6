package org.jverity.avb;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link AvbSigner} that has a {@link SigningHelper} sign: the PKCS#1 v1.5 block is computed
 * here, the helper raises it to the private exponent, and the signature it returns is checked with
 * the public key before it is used (avbtool takes any bytes of the right length, so a helper
 * holding another key, or failing quietly, makes an image no device boots). The helper may take as
 * long as it needs (a token waiting for a PIN); an interrupt stops it.
 *
 * @param keyPath the {@code --key} file, passed to the helper as avbtool does (it may hold only the
 *     public key)
 */
record HelperSigner(AvbAlgorithm algorithm, byte[] blob, Path keyPath, SigningHelper helper)
    implements AvbSigner {
  /** What is kept of the helper's stderr for a failure's message. */
  private static final int STDERR_KEPT = 4096;

  @Override
  public byte[] publicKeyBlob() {
    return blob.clone();
  }

  @Override
  public byte[] sign(byte[] headerAndAux) throws IOException {
    byte[] hash = SignatureCheck.digest(algorithm, headerAndAux);
    byte[] block = Pkcs1.encode(algorithm, hash, algorithm.signatureSize());
    byte[] signature = helper.withFiles() ? withFile(block) : withPipes(block);
    if (signature.length != algorithm.signatureSize()) {
      throw failure(
          "gave "
              + signature.length
              + " bytes (expected: a "
              + algorithm.signatureSize()
              + "-byte "
              + algorithm
              + " signature)");
    }
    int bits = algorithm.rsaBits();
    BigInteger n = AvbPublicKey.modulus(blob, bits);
    BigInteger s = new BigInteger(1, signature);
    if (s.compareTo(n) >= 0
        || !MessageDigest.isEqual(
            AvbPublicKey.fixed(s.modPow(AvbPublicKey.EXPONENT, n), bits / 8), block)) {
      throw failure("gave a signature that does not verify with the key in " + keyPath);
    }
    return signature;
  }

  /** {@code APP ALGORITHM KEY}, the block on stdin, the signature on stdout. */
  private byte[] withPipes(byte[] block) throws IOException {
    Process p = start(new ProcessBuilder(command(List.of())));
    try {
      PipeDrain out = PipeDrain.first(p.getInputStream(), algorithm.signatureSize() + 1);
      PipeDrain err = PipeDrain.last(p.getErrorStream(), STDERR_KEPT);
      try (OutputStream in = p.getOutputStream()) {
        in.write(block);
      } catch (IOException e) {
        // it closed stdin without reading (it failed early): its exit status says why
      }
      int status = await(p);
      if (status != 0) {
        String said = err.lastLine();
        throw failure("exited with status " + status + (said.isEmpty() ? "" : ": " + said));
      }
      return out.bytes();
    } finally {
      p.destroyForcibly(); // gone already, unless interrupted while it ran
    }
  }

  /** {@code APP ALGORITHM KEY FILE}: FILE holds the block, then the signature. */
  private byte[] withFile(byte[] block) throws IOException {
    Path file = Files.createTempFile("jverity-avb-sign", ".bin"); // 0600: nobody else reads it
    try {
      Files.write(file, block);
      // Its stdin and stderr are ours (it may ask for a PIN); its stdout goes to our stderr, so
      // that what a command prints stays apart from what the helper says.
      Process p =
          start(
              new ProcessBuilder(command(List.of(file.toString())))
                  .redirectInput(ProcessBuilder.Redirect.INHERIT)
                  .redirectError(ProcessBuilder.Redirect.INHERIT));
      try {
        Thread copy =
            Thread.ofVirtual()
                .start(
                    () -> {
                      try (InputStream o = p.getInputStream()) {
                        o.transferTo(System.err); // as it comes: it may be a prompt
                      } catch (IOException e) {
                        // its stdout closed under it: nothing more to show
                      }
                    });
        int status = await(p);
        try {
          copy.join();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while the signing helper ran");
        }
        if (status != 0) {
          throw failure("exited with status " + status);
        }
      } finally {
        p.destroyForcibly(); // gone already, unless interrupted while it ran
      }
      return readAtMost(file);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /** The signature the helper left, one byte more than one at most: a longer file is refused. */
  private byte[] readAtMost(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return in.readNBytes(algorithm.signatureSize() + 1);
    }
  }

  private List<String> command(List<String> more) {
    List<String> c = new ArrayList<>();
    c.add(helper.program().toString());
    c.add(algorithm.name());
    c.add(keyPath.toString());
    c.addAll(more);
    return c;
  }

  private Process start(ProcessBuilder b) throws IOException {
    try {
      return b.start();
    } catch (IOException e) {
      // a helper that is missing or not executable is a file problem, as a missing --key is
      throw new IOException(
          helper.option() + " " + helper.program() + ": cannot run it: " + reason(e), e);
    }
  }

  private static int await(Process p) throws InterruptedIOException {
    try {
      return p.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the caller's finally stops it
      throw new InterruptedIOException("interrupted while the signing helper ran");
    }
  }

  private AvbSigningException failure(String what) {
    return new AvbSigningException(helper.option() + " " + helper.program() + ": " + what);
  }

  /** "error=2, No such file or directory" of the JDK's message, without the command it repeats. */
  private static String reason(IOException e) {
    String m = String.valueOf(e.getMessage());
    int at = m.indexOf("error=");
    return at >= 0 ? m.substring(at) : m;
  }
}
