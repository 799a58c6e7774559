package dev.bosun.common.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import java.io.IOException;
import java.net.ConnectException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HumanMessagesTest {

  private static KubernetesClientException refused(int code, String message) {
    return new KubernetesClientException(
        new StatusBuilder().withCode(code).withMessage(message).withReason("Invalid").build());
  }

  @Test
  void anApiErrorIsDescribedByTheServersMessageNotTheClientsDump() {
    var status =
        new StatusBuilder()
            .withCode(422)
            .withMessage("Deployment.apps \"shop\" is invalid: metadata.name: Invalid value")
            .build();
    // What fabric8 throws: its message carries the URL and the Status's toString.
    var e =
        new KubernetesClientException(
            "Failure executing: PATCH at: https://127.0.0.1:6443/apis/apps/v1/namespaces/a/"
                + "deployments/shop. Message: invalid. Received status: "
                + status
                + ".",
            422,
            status);
    String described = HumanMessages.describe(e);
    assertThat(described)
        .isEqualTo(
            "the API server refused the request: Deployment.apps \"shop\" is invalid:"
                + " metadata.name: Invalid value");
    assertThat(described).doesNotContain("Status(").doesNotContain("Failure executing");
  }

  @Test
  void anApiErrorWrappedInOtherExceptionsIsFound() {
    var e =
        new IllegalStateException(
            "wrapper", new RuntimeException(refused(403, "deployments.apps is forbidden")));
    assertThat(HumanMessages.describe(e))
        .isEqualTo("the API server refused the request: deployments.apps is forbidden");
  }

  @Test
  void aWorkflowFailureIsDescribedByItsFirstCause() {
    var e =
        new AggregatedOperatorException(
            "Exception(s) during workflow execution.",
            Map.of("deployment", refused(409, "the object has been modified")));
    assertThat(HumanMessages.describe(e))
        .isEqualTo("the API server refused the request: the object has been modified");
  }

  @Test
  void anApiErrorWithoutMessageIsNamedByItsCode() {
    var e = new KubernetesClientException("Failure executing: GET at: https://x", 403, null);
    assertThat(HumanMessages.describe(e))
        .isEqualTo(
            "the API server answered HTTP 403 (forbidden: the operator's role does not grant"
                + " this)");
  }

  @Test
  void anUnreachableServerIsSaidSo() {
    var e =
        new KubernetesClientException(
            "An error has occurred.", new ConnectException("Connection refused"));
    assertThat(HumanMessages.describe(e))
        .isEqualTo("the API server could not be reached: Connection refused");
    assertThat(HumanMessages.describe(new IOException("stream closed")))
        .isEqualTo("a request failed on the way: stream closed");
  }

  @Test
  void aBugIsReportedWithoutItsClassMessageOrStack() {
    var e = new NullPointerException("Cannot invoke \"Object.toString()\" because x is null");
    assertThat(HumanMessages.describe(e))
        .isEqualTo("an internal error occurred; the operator's log has the details")
        .doesNotContain("NullPointerException");
  }

  @Test
  void messagesAreOneLineAndBounded() {
    var e = refused(422, "line one\n\tat dev.bosun.X.y(X.java:1)\n" + "z".repeat(2000));
    String described = HumanMessages.describe(e);
    assertThat(described).doesNotContain("\n").doesNotContain("\t").endsWith("...");
    assertThat(described.length()).isEqualTo(HumanMessages.MAX_LENGTH);
    assertThat(HumanMessages.bounded("  a \n b  ", 10)).isEqualTo("a b");
    assertThat(HumanMessages.bounded(null, 10)).isEmpty();
  }

  @Test
  void nothingToDescribeIsStillASentence() {
    assertThat(HumanMessages.describe(null)).isEqualTo("an unknown error occurred");
  }

  @Test
  void causesListTheFailureThenWhatCausedItOnce() {
    var root = new ConnectException("Connection refused");
    var middle = new IOException("upload failed", root);
    var top = new IllegalStateException("dump failed", middle);
    assertThat(HumanMessages.causes(top)).containsExactly(top, middle, root);
    var a = new IOException("a");
    var b = new IOException("b", a);
    a.initCause(b);
    assertThat(HumanMessages.causes(a)).containsExactly(a, b);
  }
}
