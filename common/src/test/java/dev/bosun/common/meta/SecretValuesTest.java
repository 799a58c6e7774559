package dev.bosun.common.meta;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SecretValuesTest {

  private static String base64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static Secret secret(Map<String, String> data, Map<String, String> stringData) {
    return new SecretBuilder().withData(data).withStringData(stringData).build();
  }

  @Test
  void aDataValueIsDecodedAsUtf8() {
    Secret s = secret(Map.of("password", base64("pässwort")), null);
    assertThat(SecretValues.value(s, "password")).hasValue("pässwort");
  }

  @Test
  void stringDataIsReadWhenDataDoesNotHoldTheKey() {
    Secret s = secret(Map.of("other", base64("x")), Map.of("password", "plain"));
    assertThat(SecretValues.value(s, "password")).hasValue("plain");
  }

  @Test
  void dataWinsOverStringData() {
    Secret s = secret(Map.of("password", base64("from-data")), Map.of("password", "plain"));
    assertThat(SecretValues.value(s, "password")).hasValue("from-data");
  }

  @Test
  void aMissingKeyOrAnEmptySecretIsEmpty() {
    assertThat(SecretValues.value(new Secret(), "password")).isEmpty();
    assertThat(SecretValues.value(secret(Map.of("other", base64("x")), null), "password"))
        .isEmpty();
  }

  @Test
  void malformedBase64ReadsAsMissingAndDoesNotFallBackToStringData() {
    Secret s = secret(Map.of("password", "not base64!"), Map.of("password", "plain"));
    assertThat(SecretValues.value(s, "password")).isEmpty();
  }

  @Test
  void blankValuesAreLeftToTheCaller() {
    Secret s = secret(Map.of("password", base64("  ")), null);
    assertThat(SecretValues.value(s, "password")).hasValue("  ");
  }
}
