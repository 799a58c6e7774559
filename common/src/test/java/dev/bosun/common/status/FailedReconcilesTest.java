package dev.bosun.common.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.status.StatusEqualityTest.Widget;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

class FailedReconcilesTest {

  private static Widget widget(String name) {
    Widget w = new Widget();
    w.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace("ns").build());
    return w;
  }

  private static KubernetesClientException notFound(String kind, String name) {
    Status status =
        new StatusBuilder()
            .withCode(404)
            .withReason("NotFound")
            .withNewDetails()
            .withKind(kind)
            .withName(name)
            .endDetails()
            .build();
    return new KubernetesClientException(status);
  }

  @Test
  void theResourceItselfNotFoundMeansItWasDeleted() {
    assertThat(FailedReconciles.primaryGone(widget("w"), notFound("widgets", "w"))).isTrue();
    // Wrapped, as a status write's failure reaches the reconciler.
    assertThat(
            FailedReconciles.primaryGone(
                widget("w"), new IllegalStateException("write", notFound("widgets", "w"))))
        .isTrue();
  }

  @Test
  void anotherObjectNotFoundIsAFailure() {
    // A child (or another resource of the kind) missing is a real failure, retried.
    assertThat(FailedReconciles.primaryGone(widget("w"), notFound("pods", "w"))).isFalse();
    assertThat(FailedReconciles.primaryGone(widget("w"), notFound("widgets", "other"))).isFalse();
    assertThat(
            FailedReconciles.primaryGone(
                widget("w"), new KubernetesClientException("connection refused")))
        .isFalse();
  }
}
