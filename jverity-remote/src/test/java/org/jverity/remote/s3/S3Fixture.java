package org.jverity.remote.s3;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.jverity.testkit.S3Server;

/** s3proxy with keys of the tests' own, its uploads signed by jverity's {@link SigV4}. */
public final class S3Fixture {
  public static final String IDENTITY = "jverity-test-identity";
  public static final String CREDENTIAL = "jverity-test-credential";
  static final String REGION = "us-east-1";

  private S3Fixture() {}

  public static S3Server start(Path dir) throws IOException {
    AwsCredentials keys = new AwsCredentials(IDENTITY, CREDENTIAL, null, "test");
    SigV4 signer = new SigV4(REGION);
    return S3Server.start(
        dir,
        IDENTITY,
        CREDENTIAL,
        (method, uri, headers, payloadHash) ->
            signer.headers(keys, Clock.systemUTC().instant(), method, uri, headers, payloadHash));
  }

  /** Signs with the fixture's identity and {@code secret} (the right one, or not). */
  static SigV4Authorizer authorizer(String secret) {
    return new SigV4Authorizer(
        new AwsEnvironment(Map.of(), Path.of("/nonexistent")),
        REGION,
        new AwsCredentials(IDENTITY, secret, null, "test"),
        Clock.systemUTC());
  }
}
