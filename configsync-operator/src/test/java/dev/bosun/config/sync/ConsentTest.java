package dev.bosun.config.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConsentTest {

  private static final String ALLOW = "config.bosun.dev/allow-sync-to";
  private static final String ACCEPT = "config.bosun.dev/accept-sync-from";

  /** A source in namespace "src", with allow-sync-to set to {@code allow} (null: absent). */
  static ConfigMap source(String allow) {
    ConfigMapBuilder b =
        new ConfigMapBuilder().withNewMetadata().withName("cfg").withNamespace("src").endMetadata();
    if (allow != null) {
      b.editMetadata().addToAnnotations(ALLOW, allow).endMetadata();
    }
    return b.build();
  }

  /** A namespace with accept-sync-from set to {@code accept} (null: absent). */
  static Namespace namespace(String name, String accept) {
    NamespaceBuilder b = new NamespaceBuilder().withNewMetadata().withName(name).endMetadata();
    if (accept != null) {
      b.editMetadata().addToAnnotations(ACCEPT, accept).endMetadata();
    }
    return b.build();
  }

  private static Optional<String> refusal(String allow, String accept, boolean required) {
    return Consent.refusal(source(allow), namespace("dest", accept), required);
  }

  @Test
  void bothSidesConsentingAllowsTheCopy() {
    assertThat(refusal("*", "*", true)).isEmpty();
    assertThat(refusal("dest", "src", true)).isEmpty();
    assertThat(refusal("a, dest ,b", "x ,src, y", true)).isEmpty();
  }

  @Test
  void sourceAllowSyncToWildcardExactNameAndCommaList() {
    assertThat(refusal("*", null, false)).isEmpty();
    assertThat(refusal("dest", null, false)).isEmpty();
    assertThat(refusal("one,dest,two", null, false)).isEmpty();
    assertThat(refusal(" one , dest , two ", null, false)).isEmpty();
    assertThat(refusal("one, *", null, false)).isEmpty();
  }

  @Test
  void sourceWithoutConsentRefusesNamingTheAnnotation() {
    for (String allow :
        new String[] {null, "", "one,two", "dest-2", "des", "destination", "de st"}) {
      Optional<String> refusal = refusal(allow, "*", true);

      assertThat(refusal).as("allow-sync-to=%s", allow).isPresent();
      assertThat(refusal.get()).contains("dest").contains(ALLOW).doesNotContain(ACCEPT);
    }
  }

  @Test
  void sourceWithoutAnyAnnotationsRefuses() {
    ConfigMap bare =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName("cfg")
            .withNamespace("src")
            .endMetadata()
            .build();

    assertThat(Consent.refusal(bare, namespace("dest", "*"), false))
        .hasValueSatisfying(m -> assertThat(m).contains(ALLOW));
  }

  @Test
  void destinationAcceptSyncFromWildcardOrListedSourceNamespace() {
    assertThat(refusal("*", "*", true)).isEmpty();
    assertThat(refusal("*", "src", true)).isEmpty();
    assertThat(refusal("*", "other, src", true)).isEmpty();
  }

  @Test
  void destinationWithoutConsentRefusesWhenRequiredNamingTheAnnotation() {
    for (String accept : new String[] {null, "", "other", "other,src2", "sr"}) {
      Optional<String> refusal = refusal("*", accept, true);

      assertThat(refusal).as("accept-sync-from=%s", accept).isPresent();
      assertThat(refusal.get()).contains("namespace dest").contains("src").contains(ACCEPT);
    }
  }

  @Test
  void destinationConsentIsIgnoredWhenNotRequired() {
    assertThat(refusal("*", null, false)).isEmpty();
    assertThat(refusal("*", "other", false)).isEmpty();
  }

  @Test
  void destinationAnnotationDoesNotStandInForTheSource() {
    // The destination accepting everything never makes up for a source that did not allow it.
    assertThat(refusal("other", "*", true)).hasValueSatisfying(m -> assertThat(m).contains(ALLOW));
    assertThat(refusal("other", "*", false)).isPresent();
  }

  @Test
  void theListIsMatchedAgainstTheRightSide() {
    // allow-sync-to names destinations; accept-sync-from names sources: not the other way round.
    assertThat(refusal("src", "*", true)).isPresent();
    assertThat(refusal("*", "dest", true)).isPresent();
  }

  @Test
  void listedIsExactPerEntry() {
    assertThat(Consent.listed(null, "a")).isFalse();
    assertThat(Consent.listed("", "a")).isFalse();
    assertThat(Consent.listed("a", "a")).isTrue();
    assertThat(Consent.listed("ab", "a")).isFalse();
    assertThat(Consent.listed("b,a", "a")).isTrue();
    assertThat(Consent.listed(" b ,  a ", "a")).isTrue();
    assertThat(Consent.listed("b;a", "a")).isFalse();
    assertThat(Consent.listed("*", "anything")).isTrue();
    assertThat(Consent.listed("x*", "xy")).isFalse();
  }
}
