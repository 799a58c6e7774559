package dev.bosun.web.reconciler;

import static dev.bosun.web.WebServices.webService;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WebServiceNamesTest {

  private static WebService named(String name) {
    return webService(name, "registry.example.com/a:1", 1);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a",
        "shop",
        "shop-2",
        "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk"
      })
  void namesEveryChildCanCarryWork(String name) {
    assertThat(WebServiceNames.problems(named(name))).isEmpty();
  }

  @Test
  void aDottedNameCannotNameTheService() {
    assertThat(WebServiceNames.problems(named("web.shop")))
        .containsExactly(
            "metadata.name: the Service, Deployment and labels are named after the WebService, and"
                + " the Service name 'web.shop' may only contain lower-case letters, digits and"
                + " '-', starting with a letter and ending with a letter or digit (no '.');"
                + " choose another name for the WebService");
  }

  @Test
  void aNameStartingWithADigitCannotNameTheService() {
    assertThat(WebServiceNames.problems(named("2shop")))
        .singleElement()
        .satisfies(p -> assertThat(p).contains("the Service name '2shop'"));
  }

  @Test
  void aNameLongerThanALabelIsRefusedWithItsLength() {
    assertThat(WebServiceNames.problems(named("a".repeat(64))))
        .singleElement()
        .satisfies(p -> assertThat(p).contains("is 64 characters long; at most 63 are allowed"));
  }

  @Test
  void theActionFilterPassesSpecChangesAndTheAnnotationButNotStatusWrites() {
    var filter = new SpecOrActionChanged();
    WebService old = named("shop");
    old.getMetadata().setGeneration(1L);
    WebService statusOnly = named("shop");
    statusOnly.getMetadata().setGeneration(1L);
    statusOnly.setStatus(new dev.bosun.web.v1alpha1.WebServiceStatus());
    assertThat(filter.accept(statusOnly, old)).isFalse();

    WebService newSpec = named("shop");
    newSpec.getMetadata().setGeneration(2L);
    assertThat(filter.accept(newSpec, old)).isTrue();

    WebService annotated = named("shop");
    annotated.setMetadata(
        new ObjectMetaBuilder(old.getMetadata())
            .addToAnnotations(WebServiceOperator.ROLLOUT_ACTION, "abort")
            .build());
    assertThat(filter.accept(annotated, old)).isTrue();
    assertThat(filter.accept(old, annotated)).isTrue();

    WebService deleting = named("shop");
    deleting.setMetadata(
        new ObjectMetaBuilder(old.getMetadata())
            .withDeletionTimestamp("2026-11-23T12:00:00Z")
            .build());
    assertThat(filter.accept(deleting, old)).isTrue();
  }
}
