package dev.bosun.common.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Matcher.Result;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class RememberingDependentTest {

  private static final String OPERATOR = OwnedChildren.OPERATOR;

  /** A dependent whose desired object is built from the primary and a step. */
  private static final class Stepped extends RememberingDependent<Deployment, ConfigMap> {
    Stepped() {
      super(Deployment.class);
    }

    String step = "steady";

    @Override
    protected String desiredInputs(ConfigMap primary, Context<ConfigMap> context) {
      String stored = super.desiredInputs(primary, context);
      return stored == null ? null : stored + " " + step;
    }
  }

  private final Stepped dependent = new Stepped();
  private final AtomicInteger builds = new AtomicInteger();

  private static ConfigMap primary(String resourceVersion) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName("shop")
        .withUid("primary-uid")
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .build();
  }

  private static Deployment child(UnaryOperator<DeploymentBuilder> change) {
    return OwnedChildren.deployment(change);
  }

  /** Matches as JOSDK would, counting each time the desired object is built and compared. */
  private Result<Deployment> match(Deployment child, ConfigMap primary, boolean answer) {
    return dependent.match(
        child,
        dependent.desiredInputs(primary, null),
        OPERATOR,
        () -> {
          builds.incrementAndGet();
          return Result.nonComputed(answer);
        });
  }

  @Test
  void aChildsStatusUpdateWithTheSamePrimaryBuildsNothing() {
    assertThat(match(child(b -> b), primary("5"), true).matched()).isTrue();
    Deployment rolledOut = OwnedChildren.rolledOut();
    assertThat(match(rolledOut, primary("5"), true).matched()).isTrue();
    assertThat(builds).hasValue(1);
    assertThat(dependent.remembered()).isEqualTo(1);
  }

  @Test
  void aChangedPrimaryStepOrChildIsBuiltAndComparedAgain() {
    match(child(b -> b), primary("5"), true);
    match(child(b -> b), primary("6"), true);
    assertThat(builds).as("the primary changed").hasValue(2);

    dependent.step = "canary 1 of 3";
    match(child(b -> b), primary("6"), true);
    assertThat(builds).as("the step changed").hasValue(3);

    match(child(b -> b.editMetadata().withGeneration(2L).endMetadata()), primary("6"), true);
    assertThat(builds).as("someone changed the child's spec").hasValue(4);

    match(
        child(b -> b.editMetadata().addToLabels("team", "checkout").endMetadata()),
        primary("6"),
        true);
    assertThat(builds).as("someone changed the child's labels").hasValue(5);
  }

  @Test
  void aChildItWroteMatchesWithoutBeingBuiltWhenItsStatusComes() {
    // The apply's answer carries the field set as read; the informer's copy holds it compacted.
    Deployment written = child(b -> b);
    dependent.written(written, dependent.desiredInputs(primary("5"), null), OPERATOR);
    var cache = new TrimmedItemStore<Deployment>(OPERATOR) {};
    cache.put("shop", OwnedChildren.rolledOut());
    assertThat(match(cache.get("shop"), primary("5"), true).matched()).isTrue();
    assertThat(builds).hasValue(0);

    // Written from an older primary: built and compared.
    match(cache.get("shop"), primary("6"), true);
    assertThat(builds).hasValue(1);
  }

  @Test
  void aMismatchIsBuiltAndComparedEveryTime() {
    assertThat(match(child(b -> b), primary("5"), false).matched()).isFalse();
    assertThat(match(child(b -> b), primary("5"), false).matched()).isFalse();
    assertThat(builds).hasValue(2);
    assertThat(dependent.remembered()).isZero();
  }

  @Test
  void withoutAResourceVersionOrUidNothingIsRemembered() {
    ConfigMap unsaved = primary(null);
    match(child(b -> b), unsaved, true);
    match(child(b -> b), unsaved, true);
    assertThat(builds).hasValue(2);
    Deployment noUid = child(b -> b.editMetadata().withUid(null).endMetadata());
    match(noUid, primary("5"), true);
    match(noUid, primary("5"), true);
    assertThat(builds).hasValue(4);
  }
}
