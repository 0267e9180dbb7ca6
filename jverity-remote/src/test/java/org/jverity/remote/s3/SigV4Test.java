package org.jverity.remote.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** AWS's documented "GET Object" example (S3 SigV4, header-based), step by step. */
class SigV4Test {
  private static final AwsCredentials EXAMPLE =
      new AwsCredentials(
          "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", null, "test");
  private static final Instant WHEN = Instant.parse("2013-05-24T00:00:00Z");
  private static final URI OBJECT = URI.create("https://examplebucket.s3.amazonaws.com/test.txt");

  @Test
  void canonicalRequestOfAwsExampleHasItsDocumentedHash() {
    Map<String, String> signed =
        SigV4.signedHeaders(
            OBJECT,
            Map.of("range", "bytes=0-9"),
            Map.of("x-amz-date", "20130524T000000Z", "x-amz-content-sha256", SigV4.EMPTY_PAYLOAD));
    String canonical = SigV4.canonicalRequest("GET", OBJECT, signed, SigV4.EMPTY_PAYLOAD);

    assertThat(canonical)
        .isEqualTo(
            """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855""");
    assertThat(SigV4.sha256(canonical))
        .isEqualTo("7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  }

  @Test
  void awsExampleSignsToItsDocumentedSignature() {
    Map<String, String> added =
        new SigV4("us-east-1")
            .headers(
                EXAMPLE,
                WHEN,
                "GET",
                OBJECT,
                Map.of("range", "bytes=0-9", "if-match", "\"abc\""),
                SigV4.EMPTY_PAYLOAD);

    assertThat(added)
        .containsEntry("x-amz-date", "20130524T000000Z")
        .containsEntry("x-amz-content-sha256", SigV4.EMPTY_PAYLOAD)
        .doesNotContainKey("x-amz-security-token");
    assertThat(added.get("authorization"))
        .isEqualTo(
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + " SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + " Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  }

  @Test
  void sessionTokenIsSentAndSigned() {
    AwsCredentials session =
        new AwsCredentials(
            EXAMPLE.accessKeyId(), EXAMPLE.secretAccessKey(), "FwoGZXIvYXdzEXAMPLE", "test");
    Map<String, String> added =
        new SigV4("us-east-1").headers(session, WHEN, "GET", OBJECT, Map.of(), SigV4.EMPTY_PAYLOAD);

    assertThat(added).containsEntry("x-amz-security-token", "FwoGZXIvYXdzEXAMPLE");
    assertThat(added.get("authorization"))
        .contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,")
        .doesNotContain("f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  }

  @Test
  void pathSegmentsAreEncodedOnceAndQueryIsSorted() {
    URI uri =
        URI.create("http://127.0.0.1:9000/bucket/dir/a%20b%2Bc%C3%A9.img?versionId=x%2Fy&acl");

    assertThat(SigV4.canonicalUri(uri)).isEqualTo("/bucket/dir/a%20b%2Bc%C3%A9.img");
    assertThat(SigV4.canonicalQuery(uri.getRawQuery())).isEqualTo("acl=&versionId=x%2Fy");
    assertThat(SigV4.host(uri)).isEqualTo("127.0.0.1:9000");
    assertThat(SigV4.host(URI.create("https://h:443/x"))).isEqualTo("h");
    assertThat(SigV4.canonicalUri(URI.create("http://h"))).isEqualTo("/");
  }

  @Test
  void keysAreEncodedAsTheyAreSigned() {
    assertThat(S3Encoding.encodePath("dir/a b+c~é.img")).isEqualTo("dir/a%20b%2Bc~%C3%A9.img");
    assertThat(S3Encoding.decode("a%20b%2Bc%C3%A9%zz+")).isEqualTo("a b+cé%zz+");
  }
}
