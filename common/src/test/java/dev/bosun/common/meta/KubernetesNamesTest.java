package dev.bosun.common.meta;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KubernetesNamesTest {

  private static final String LONG_LABEL =
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

  @ParameterizedTest
  @ValueSource(strings = {"a", "shop", "shop-2", "0day", LONG_LABEL})
  void validDns1123Labels(String name) {
    assertThat(KubernetesNames.dns1123Label("name", name)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "Shop", "shop.web", "-shop", "shop-", "shop_web", "a" + LONG_LABEL})
  void invalidDns1123Labels(String name) {
    assertThat(KubernetesNames.dns1123Label("Pod name", name)).isPresent();
  }

  @Test
  void aServiceNameMustStartWithALetterAndHaveNoDots() {
    assertThat(KubernetesNames.dns1035Label("Service name", "shop")).isEmpty();
    assertThat(KubernetesNames.dns1035Label("Service name", "2shop"))
        .hasValue(
            "Service name '2shop' may only contain lower-case letters, digits and '-', starting"
                + " with a letter and ending with a letter or digit (no '.')");
    assertThat(KubernetesNames.dns1035Label("Service name", "shop.web")).isPresent();
  }

  @Test
  void tooLongNamesSayHowLongTheyAreAndWhatIsAllowed() {
    assertThat(KubernetesNames.dns1035Label("Service name", "a" + LONG_LABEL))
        .hasValue(
            "Service name '" + "a".repeat(64) + "' is 64 characters long; at most 63 are allowed");
  }

  @Test
  void subdomainsAllowDotsUpTo253Characters() {
    assertThat(KubernetesNames.dns1123Subdomain("name", "shop.web.example")).isEmpty();
    assertThat(KubernetesNames.dns1123Subdomain("name", "a".repeat(253))).isEmpty();
    assertThat(KubernetesNames.dns1123Subdomain("name", "a".repeat(254)))
        .hasValueSatisfying(m -> assertThat(m).contains("254 characters long; at most 253"));
    assertThat(KubernetesNames.dns1123Subdomain("name", "shop..web")).isPresent();
    assertThat(KubernetesNames.dns1123Subdomain("name", "Shop")).isPresent();
  }

  @Test
  void longValuesAreShortenedInTheMessage() {
    Optional<String> problem = KubernetesNames.dns1123Subdomain("name", "x".repeat(300));
    assertThat(problem).hasValueSatisfying(m -> assertThat(m.length()).isLessThan(160));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "v1", "1.4.2", "a_b-c.d", "A", LONG_LABEL})
  void validLabelValues(String value) {
    assertThat(KubernetesNames.labelValue("label value", value)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"-a", "a-", "a b", "a/b", "a" + LONG_LABEL})
  void invalidLabelValues(String value) {
    assertThat(KubernetesNames.labelValue("label value", value)).isPresent();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "team",
        "app.kubernetes.io/name",
        "example.com/Team_1",
        "a",
        "prometheus.io/scrape"
      })
  void validQualifiedNames(String key) {
    assertThat(KubernetesNames.qualifiedName("key", key)).isEmpty();
  }

  @Test
  void invalidQualifiedNamesNameTheBrokenPart() {
    assertThat(KubernetesNames.qualifiedName("key", "")).hasValue("key must not be empty");
    assertThat(KubernetesNames.qualifiedName("key", "Example.com/x"))
        .hasValueSatisfying(m -> assertThat(m).startsWith("key prefix 'Example.com'"));
    assertThat(KubernetesNames.qualifiedName("key", "example.com/"))
        .hasValue("key 'example.com/' has an empty name after '/'");
    assertThat(KubernetesNames.qualifiedName("key", "bad key"))
        .hasValueSatisfying(m -> assertThat(m).startsWith("key 'bad key' may only contain"));
    assertThat(KubernetesNames.qualifiedName("key", "x/" + "a".repeat(64)))
        .hasValueSatisfying(m -> assertThat(m).contains("64 characters long"));
  }
}
