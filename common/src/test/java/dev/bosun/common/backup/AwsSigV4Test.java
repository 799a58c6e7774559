package dev.bosun.common.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.ZonedDateTime;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AwsSigV4Test {

  /** AWS's published SigV4 example for S3 ("GET Object", examplebucket, 2013-05-24). */
  @Test
  void matchesAwsPublishedExample() {
    var signed =
        AwsSigV4.sign(
            "GET",
            "/test.txt",
            Map.of(),
            Map.of(
                "host", "examplebucket.s3.amazonaws.com",
                "range", "bytes=0-9",
                "x-amz-content-sha256",
                    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "us-east-1",
            new S3Credentials("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            ZonedDateTime.parse("2013-05-24T00:00:00Z"));

    assertThat(signed.amzDate()).isEqualTo("20130524T000000Z");
    assertThat(signed.authorization())
        .isEqualTo(
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  }

  @Test
  void queryIsSortedAndEncoded() {
    assertThat(AwsSigV4.canonicalQuery(Map.of("prefix", "a b/c", "list-type", "2")))
        .isEqualTo("list-type=2&prefix=a%20b%2Fc");
  }

  @Test
  void pathsKeepTheirSlashes() {
    assertThat(AwsSigV4.encode("etcd/main/snap shot~1.db", false))
        .isEqualTo("etcd/main/snap%20shot~1.db");
  }

  @Test
  void credentialsNeverPrintTheSecret() {
    assertThat(new S3Credentials("id", "very-secret").toString()).doesNotContain("very-secret");
  }
}
