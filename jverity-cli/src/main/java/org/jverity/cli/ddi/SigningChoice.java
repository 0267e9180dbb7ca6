package org.jverity.cli.ddi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.jverity.avb.AvbAlgorithm;
import org.jverity.avb.AvbSigner;
import org.jverity.avb.SigningHelper;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.ExitCode;
import org.jverity.cli.command.Signing;
import org.jverity.cli.syntax.FileName;
import org.jverity.cli.syntax.Syntax;
import org.jverity.ddi.RootHashSigner;
import org.jverity.ddi.VeritySignature;
import org.jverity.sig.InvalidSignatureException;
import org.jverity.sig.Pem;
import org.jverity.sig.RootHashSignature;

/**
 * How {@code ddi build} signs the root hash: with a key at hand ({@code --key}), with a key a
 * signing helper holds (avbtool's protocol), with a signature made elsewhere and joined ({@code
 * --join-signature}, as systemd-repart 258+), or not at all, saying what to sign ({@code
 * --print-digest}). Every way but the last takes the signer's certificate ({@code --cert}) and
 * gives the PKCS#7 {@code --key} would: the certificate in it, no signed attributes.
 */
final class SigningChoice {
  /** The largest signature repart joins (its {@code VERITY_SIG_SIZE}). */
  static final int MAX_JOINED_BYTES = 16 << 10;

  Path key;
  Path cert;
  Path helper;
  boolean helperWithFiles;
  String joinedRootHash;
  String joinedSignature; // a file name, or base64: and the DER's base64
  boolean printDigest;

  static final Syntax<SigningChoice> SYNTAX =
      Syntax.<SigningChoice>group()
          .option(
              "--key",
              "KEY.pem",
              "Sign the root hash with this private key (PEM).",
              (c, v) -> c.key = FileName.parse(v))
          .namesAFile()
          .option(
              "--cert",
              "CERT.pem",
              "The signer's X.509 certificate (PEM), put in the signature: with --key,"
                  + " --signing-helper or --join-signature.",
              (c, v) -> c.cert = FileName.parse(v))
          .namesAFile()
          .option(
              "--signing-helper, --signing_helper",
              "PROGRAM",
              "Have PROGRAM sign, holding the private key, as avbtool's --signing_helper does: run"
                  + " as PROGRAM SHA256_RSA<bits> CERT.pem, given on stdin the PKCS#1 v1.5 block of"
                  + " the root hash text's SHA-256, as long as the modulus; the raw RSA signature is"
                  + " read from its stdout and checked with --cert's key. RSA keys of 2048, 4096 or"
                  + " 8192 bits only (avbtool's algorithms).",
              (c, v) -> c.helper(v, false))
          .namesAFile()
          .option(
              "--signing-helper-with-files, --signing_helper_with_files",
              "PROGRAM",
              "As --signing-helper, run as PROGRAM SHA256_RSA<bits> CERT.pem FILE: FILE holds the"
                  + " block, then the signature PROGRAM writes over it.",
              (c, v) -> c.helper(v, true))
          .namesAFile()
          .flag(
              "--print-digest",
              "The first step of signing elsewhere: build the image without a signature"
                  + " partition and print only what its signature must sign, the root hash in"
                  + " lower-case hex on one line (the PKCS#7 covers those characters without the"
                  + " newline); with --json, as \"digest\". Build again with the same input and"
                  + " --seed, and --join-signature.",
              c -> c.printDigest = true)
          .option(
              "--join-signature",
              "ROOTHASH:SIG",
              "The second step: put this signature in the signature partition, as"
                  + " systemd-repart's --join-signature: ROOTHASH in hex, SIG a file holding the"
                  + " DER PKCS#7, or base64: followed by its base64. It must be --cert's"
                  + " signature of ROOTHASH (checked before anything is built), ROOTHASH must be"
                  + " the image's, and --cert is required, as repart requires it.",
              SigningChoice::join);

  private void helper(String v, boolean withFiles) {
    helper = FileName.parse(v);
    helperWithFiles = withFiles;
  }

  private void join(String v) {
    int colon = v.indexOf(':');
    String hash = colon < 0 ? "" : v.substring(0, colon).toLowerCase(Locale.ROOT);
    if (hash.length() < 32
        || hash.length() % 2 != 0
        || !hash.chars().allMatch(HexFormat::isHexDigit)) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER,
          "--join-signature: '"
              + v
              + "' (expected: ROOTHASH:SIG, the root hash in hex, at least 128 bits, and the"
              + " signature's file or base64:BASE64)");
    }
    joinedRootHash = hash;
    joinedSignature = v.substring(colon + 1);
  }

  /** Refuses a combination of options that cannot be meant, before anything is read. */
  void check() {
    List<String> ways = new ArrayList<>();
    if (key != null) {
      ways.add("--key");
    }
    if (helper != null) {
      ways.add(helperOption());
    }
    if (joinedRootHash != null) {
      ways.add("--join-signature");
    }
    if (printDigest) {
      ways.add("--print-digest");
    }
    if (ways.size() > 1) {
      throw new CliException(
          ExitCode.USAGE, String.join(" and ", ways) + ": give one (each is a way to sign)");
    }
    if (ways.isEmpty() || printDigest) {
      if (cert != null) {
        throw new CliException(
            ExitCode.USAGE, "--cert goes with --key, --signing-helper or --join-signature");
      }
    } else if (cert == null) {
      throw new CliException(
          ExitCode.USAGE,
          ways.getFirst()
              + " needs --cert (the signer's certificate, which the signature carries)");
    }
  }

  /** The files these options read, for the output's distinctness check. */
  List<Path> inputs() {
    List<Path> in = new ArrayList<>();
    for (Path p : new Path[] {key, cert, helper}) {
      if (p != null) {
        in.add(p);
      }
    }
    if (joinedSignature != null && !joinedSignature.startsWith("base64:")) {
      in.add(FileName.parse(joinedSignature));
    }
    return in;
  }

  /**
   * Who signs, the key, certificate and any joined signature read and checked; null for an image
   * without a signature partition.
   *
   * @throws InvalidSignatureException when a joined signature is not --cert's of its root hash
   */
  RootHashSigner signer() throws IOException, InvalidSignatureException {
    if (key != null) {
      Signing s = Signing.load(key, cert);
      return RootHashSigner.of(s.key(), s.cert());
    }
    if (helper != null) {
      X509Certificate c = certificate();
      AvbSigner avb = helperSigner(c);
      return rootHex ->
          new VeritySignature(
              rootHex,
              VeritySignature.fingerprint(c),
              RootHashSignature.signWithCertificate(rootHex, c, avb::sign));
    }
    if (joinedRootHash != null) {
      return joined(certificate());
    }
    return null;
  }

  private X509Certificate certificate() throws IOException {
    Checks.requireFile(cert, "certificate");
    return Pem.readCertificates(cert).getFirst();
  }

  /** The helper, with the avbtool algorithm of the certificate's key: RSA only. */
  private AvbSigner helperSigner(X509Certificate c) {
    PublicKey k = c.getPublicKey();
    int bits = k instanceof RSAPublicKey rsa ? rsa.getModulus().bitLength() : 0;
    if (bits != 2048 && bits != 4096 && bits != 8192) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER,
          helperOption()
              + ": "
              + cert
              + " holds "
              + (bits == 0 ? "an " + k.getAlgorithm() + " key" : "a " + bits + "-bit RSA key")
              + " (expected: RSA of 2048, 4096 or 8192 bits: avbtool's helper protocol signs"
              + " PKCS#1 v1.5 blocks with those only)");
    }
    try {
      return AvbSigner.withHelper(
          AvbAlgorithm.named("SHA256_RSA" + bits),
          k,
          cert,
          new SigningHelper(helper, helperWithFiles));
    } catch (IllegalArgumentException e) { // an exponent AVB does not take
      throw new CliException(ExitCode.INVALID_PARAMETER, cert + ": " + e.getMessage());
    }
  }

  /** The joined signature, checked now, and for the image's root hash once it is known. */
  private RootHashSigner joined(X509Certificate c) throws IOException, InvalidSignatureException {
    byte[] der = joinedBytes();
    requireJoinable(der.length);
    RootHashSignature.verify(der, joinedRootHash, List.of(c));
    String fingerprint = VeritySignature.fingerprint(c);
    return rootHex -> {
      if (!rootHex.equals(joinedRootHash)) {
        throw new InvalidSignatureException(
            InvalidSignatureException.Reason.BAD_SIGNATURE,
            "--join-signature: signs root hash "
                + joinedRootHash
                + ", not the image's "
                + rootHex
                + " (expected: the input, --seed and options of the --print-digest build)");
      }
      return new VeritySignature(rootHex, fingerprint, der);
    };
  }

  private byte[] joinedBytes() throws IOException {
    if (joinedSignature.startsWith("base64:")) {
      try {
        return Base64.getMimeDecoder().decode(joinedSignature.substring("base64:".length()));
      } catch (IllegalArgumentException e) {
        throw new CliException(
            ExitCode.INVALID_PARAMETER, "--join-signature: not base64 (" + e.getMessage() + ")");
      }
    }
    Path file = FileName.parse(joinedSignature);
    Checks.requireFile(file, "signature");
    requireJoinable(Files.size(file)); // before reading it: it may be anything
    return Files.readAllBytes(file);
  }

  private static void requireJoinable(long bytes) {
    if (bytes == 0 || bytes > MAX_JOINED_BYTES) {
      throw new CliException(
          ExitCode.INVALID_PARAMETER,
          "--join-signature: "
              + bytes
              + " bytes (expected: 1 to "
              + MAX_JOINED_BYTES
              + ", as systemd-repart joins)");
    }
  }

  private String helperOption() {
    return helperWithFiles ? "--signing-helper-with-files" : "--signing-helper";
  }
}
