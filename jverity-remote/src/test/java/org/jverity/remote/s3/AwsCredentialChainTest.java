package org.jverity.remote.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The AWS CLI's chain over an injected environment and home: never the real ones. */
class AwsCredentialChainTest {
  @TempDir Path home;

  @BeforeEach
  void awsFiles() throws IOException {
    Files.createDirectories(home.resolve(".aws"));
    Files.writeString(
        home.resolve(".aws/credentials"),
        """
        [default]
        aws_access_key_id = AKIDDEFAULT
        aws_secret_access_key = secret-default

        # a comment
        [ci]
        aws_access_key_id=AKIDCI
        aws_secret_access_key=secret-ci
        aws_session_token=token-ci
        """);
    Files.writeString(
        home.resolve(".aws/config"),
        """
        [default]
        region = eu-west-1

        [profile ci]
        region = ap-south-1
        endpoint_url = http://127.0.0.1:9000
        s3 =
          addressing_style = virtual

        [profile config-only]
        aws_access_key_id = AKIDCONFIG
        aws_secret_access_key = secret-config
        """);
  }

  private AwsEnvironment env(String... pairs) {
    Map<String, String> vars = new java.util.HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      vars.put(pairs[i], pairs[i + 1]);
    }
    return new AwsEnvironment(vars, home);
  }

  @Test
  void environmentWinsOverProfile() throws IOException {
    AwsCredentials keys =
        env("AWS_ACCESS_KEY_ID", "AKIDENV", "AWS_SECRET_ACCESS_KEY", "secret-env").credentials();

    assertThat(keys.accessKeyId()).isEqualTo("AKIDENV");
    assertThat(keys.sessionToken()).isNull();
    assertThat(keys.source()).isEqualTo("environment");
    assertThat(keys.toString()).doesNotContain("secret-env");
  }

  @Test
  void defaultProfileFromCredentialsFile() throws IOException {
    AwsCredentials keys = env().credentials();

    assertThat(keys.accessKeyId()).isEqualTo("AKIDDEFAULT");
    assertThat(keys.secretAccessKey()).isEqualTo("secret-default");
    assertThat(keys.source()).startsWith("profile default (").endsWith(".aws/credentials)");
  }

  @Test
  void awsProfileSelectsSectionWithSessionToken() throws IOException {
    AwsCredentials keys = env("AWS_PROFILE", "ci").credentials();

    assertThat(keys.accessKeyId()).isEqualTo("AKIDCI");
    assertThat(keys.sessionToken()).isEqualTo("token-ci");
  }

  @Test
  void keysInConfigFileAreFoundToo() throws IOException {
    assertThat(env("AWS_PROFILE", "config-only").credentials().accessKeyId())
        .isEqualTo("AKIDCONFIG");
  }

  @Test
  void filePathsComeFromTheEnvironment() throws IOException {
    Path other = home.resolve("elsewhere");
    Files.writeString(other, "[default]\naws_access_key_id=AKIDOTHER\naws_secret_access_key=s\n");

    assertThat(env("AWS_SHARED_CREDENTIALS_FILE", other.toString()).credentials().accessKeyId())
        .isEqualTo("AKIDOTHER");
    assertThat(env("AWS_SHARED_CREDENTIALS_FILE", "~/elsewhere").credentials().accessKeyId())
        .isEqualTo("AKIDOTHER");
  }

  @Test
  void homeIsHomeWhenSetElseThePasswdEntrysAsBotocoreExpandsTilde() {
    assertThat(AwsEnvironment.home(Map.of("HOME", "/ci/home"), "/root"))
        .isEqualTo(Path.of("/ci/home"));
    assertThat(AwsEnvironment.home(Map.of(), "/root")).isEqualTo(Path.of("/root"));
    assertThat(AwsEnvironment.home(Map.of("HOME", ""), "/root")).isEqualTo(Path.of("/"));
  }

  @Test
  void noKeysAnywhereIsAnonymous() throws IOException {
    Files.delete(home.resolve(".aws/credentials"));
    AwsEnvironment env = env();

    assertThat(env.credentials()).isNull();
    S3Settings settings = S3Settings.resolve(env, null, "public", null);
    assertThat(settings.describe()).contains("anonymous");
    assertThat(
            new SigV4Authorizer(env, "us-east-1", null, Clock.systemUTC())
                .headers(
                    "GET",
                    URI.create("https://public.s3.us-east-1.amazonaws.com/k"),
                    Map.of("range", "bytes=0-0")))
        .isEmpty();
  }

  @Test
  void halfAKeyPairOrAMissingProfileIsAnError() {
    assertThatThrownBy(() -> env("AWS_ACCESS_KEY_ID", "AKIDENV").credentials())
        .hasMessage("partial AWS credentials in environment: secret access key missing");
    assertThatThrownBy(() -> env("AWS_PROFILE", "nope").credentials())
        .hasMessageStartingWith("AWS profile nope not found in ");
  }

  @Test
  void regionFromEnvironmentThenProfileThenDefault() throws IOException {
    assertThat(
            S3Settings.resolve(
                    env("AWS_REGION", "us-west-2", "AWS_DEFAULT_REGION", "x"), null, "b", null)
                .region())
        .isEqualTo("us-west-2");
    assertThat(
            S3Settings.resolve(env("AWS_DEFAULT_REGION", "ca-central-1"), null, "b", null).region())
        .isEqualTo("ca-central-1");
    assertThat(S3Settings.resolve(env(), null, "b", null).region()).isEqualTo("eu-west-1");
    Files.delete(home.resolve(".aws/config"));
    assertThat(S3Settings.resolve(env(), null, "b", null).region()).isEqualTo("us-east-1");
  }

  @Test
  void awsIsVirtualHostedButDottedBucketsArePathStyle() throws IOException {
    S3Settings aws = S3Settings.resolve(env(), null, "images", null);

    assertThat(aws.pathStyle()).isFalse();
    assertThat(aws.objectUri(S3Location.parse("s3://images/a b/c.img")))
        .isEqualTo(URI.create("https://images.s3.eu-west-1.amazonaws.com/a%20b/c.img"));
    S3Settings dotted = S3Settings.resolve(env(), null, "my.images", null);
    assertThat(dotted.objectUri(S3Location.parse("s3://my.images/c.img?versionId=v1+")))
        .isEqualTo(
            URI.create("https://s3.eu-west-1.amazonaws.com/my.images/c.img?versionId=v1%2B"));
    assertThat(S3Settings.resolve(env(), null, "Legacy_Bucket", null).pathStyle()).isTrue();
  }

  @Test
  void endpointOptionThenEnvironmentThenProfile() throws IOException {
    AwsEnvironment env =
        env(
            "AWS_ENDPOINT_URL_S3", "http://s3-env:1",
            "AWS_ENDPOINT_URL", "http://any-env:2");

    assertThat(S3Settings.resolve(env, "http://127.0.0.1:7/", "b", null).endpoint())
        .isEqualTo(URI.create("http://127.0.0.1:7/"));
    assertThat(S3Settings.resolve(env, null, "b", null).endpoint())
        .isEqualTo(URI.create("http://s3-env:1"));
    assertThat(
            S3Settings.resolve(env("AWS_ENDPOINT_URL", "http://any-env:2"), null, "b", null)
                .endpoint())
        .isEqualTo(URI.create("http://any-env:2"));
    S3Settings custom =
        S3Settings.resolve(env("AWS_ENDPOINT_URL", "http://any-env:2"), "", "b", null);
    assertThat(custom.pathStyle()).isTrue();
    assertThat(custom.objectUri(S3Location.parse("s3://b/k")))
        .isEqualTo(URI.create("http://any-env:2/b/k"));
    assertThat(
            S3Settings.resolve(env(), "http://127.0.0.1:7/s3/", "b", null)
                .objectUri(S3Location.parse("s3://b/k")))
        .isEqualTo(URI.create("http://127.0.0.1:7/s3/b/k"));
  }

  @Test
  void profileEndpointAndAddressingStyle() throws IOException {
    S3Settings ci = S3Settings.resolve(env("AWS_PROFILE", "ci"), null, "b", null);

    assertThat(ci.endpoint()).isEqualTo(URI.create("http://127.0.0.1:9000"));
    assertThat(ci.region()).isEqualTo("ap-south-1");
    assertThat(ci.pathStyle()).isFalse();
    assertThat(ci.objectUri(S3Location.parse("s3://b/k")))
        .isEqualTo(URI.create("http://b.127.0.0.1:9000/k"));
  }

  @Test
  void endpointThatIsNotAnHttpUrlIsRefused() {
    assertThatThrownBy(() -> S3Settings.resolve(env(), "127.0.0.1:9000", "b", null))
        .hasMessageContaining("http:// or https://");
    assertThatThrownBy(() -> S3Settings.resolve(env(), "http://user:pw@h/", "b", null))
        .hasMessage("S3 endpoint must have no query or user info: h");
  }

  @Test
  void describeNamesSourceNeverSecrets() throws IOException {
    AwsEnvironment env = env("AWS_PROFILE", "ci");
    AwsCredentials keys = env.credentials();
    String line = S3Settings.resolve(env, null, "b", keys).describe();

    assertThat(line)
        .isEqualTo(
            "S3 endpoint http://127.0.0.1:9000, virtual-hosted style, region ap-south-1,"
                + " credentials: profile ci ("
                + home.resolve(".aws/credentials")
                + ")")
        .doesNotContain("secret-ci")
        .doesNotContain("token-ci")
        .doesNotContain("AKIDCI");
  }

  @Test
  void sessionTokenGoesIntoTheSignedHeaders() throws IOException {
    AwsEnvironment env = env("AWS_PROFILE", "ci");
    Clock clock = Clock.fixed(Instant.parse("2026-12-01T00:00:00Z"), ZoneOffset.UTC);
    Map<String, String> headers =
        new SigV4Authorizer(env, "ap-south-1", env.credentials(), clock)
            .headers("GET", URI.create("http://127.0.0.1:9000/b/k"), Map.of("range", "bytes=0-9"));

    assertThat(headers).containsEntry("x-amz-security-token", "token-ci");
    assertThat(headers.get("authorization"))
        .startsWith("AWS4-HMAC-SHA256 Credential=AKIDCI/20261201/ap-south-1/s3/aws4_request,")
        .contains("SignedHeaders=host;range;x-amz-content-sha256;x-amz-date;x-amz-security-token,");
  }

  @Test
  void refreshSeesRotatedKeysOnly() throws IOException {
    AwsEnvironment env = env();
    SigV4Authorizer auth =
        new SigV4Authorizer(env, "us-east-1", env.credentials(), Clock.systemUTC());

    assertThat(auth.refresh()).isFalse();
    Files.writeString(
        home.resolve(".aws/credentials"),
        "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = rotated\n");
    assertThat(auth.refresh()).isTrue();
    assertThat(auth.refresh()).isFalse();
  }
}
