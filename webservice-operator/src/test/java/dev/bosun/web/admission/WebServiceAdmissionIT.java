package dev.bosun.web.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.common.admission.AdmissionWebhook;
import dev.bosun.common.admission.WebhookSettings;
import dev.bosun.common.testing.AdmissionContract;
import dev.bosun.common.testing.AdmissionUnderTest.Applied;
import dev.bosun.common.testing.RunningOperator;
import dev.bosun.web.Main;
import dev.bosun.web.WebServiceOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The WebService operator's admission webhook on the real API server (1.20, which ignores the CRD's
 * CEL rules): kubectl apply of each bad WebService in the table is refused naming the field, a good
 * one is stored, and with the webhook down creates fail closed while a change, the operator's
 * status write (InvalidSpec, the backstop), finalizers and deletes still pass.
 *
 * <p>The webhook is the operator's own ({@link Main#serveAdmission}) on this JVM, behind the
 * chart's own configuration ({@link AdmissionContract}).
 */
class WebServiceAdmissionIT extends AdmissionContract {

  private static final String NS = "webservice-admission";
  private static final String API = "web.bosun.dev/v1alpha1";
  private static final String KIND = "WebService";
  private static final String GOOD = "image: nginx:1.25\nports: [{name: http, port: 80}]";

  WebServiceAdmissionIT() {
    super(NS, API, "webservices.web.bosun.dev");
  }

  @Override
  protected AdmissionWebhook serve(WebhookSettings settings) {
    return Main.serveAdmission(client, settings);
  }

  static Stream<Arguments> badObjects() {
    String image = "image: nginx:1.25\n";
    String http = "ports: [{name: http, port: 80}]\n";
    return Stream.of(
        // The CRD's CEL rules, which this API server does not run.
        Arguments.of(
            "more minimum than maximum replicas",
            KIND,
            "scale",
            image + http + "autoscaling: {minReplicas: 5, maxReplicas: 2}",
            "spec.autoscaling.minReplicas"),
        Arguments.of(
            "a nodePort on a ClusterIP Service",
            KIND,
            "node-port",
            image + "ports: [{name: http, port: 80, nodePort: 30080}]",
            "spec.ports[http].nodePort"),
        Arguments.of(
            "one port twice",
            KIND,
            "twice",
            image + "ports: [{name: a, port: 80}, {name: b, port: 80}]",
            "spec.ports: port 80/TCP"),
        Arguments.of(
            "an env var with value and valueFrom",
            KIND,
            "env",
            image
                + http
                + "env: [{name: X, value: '1', valueFrom: {secretKeyRef: {name: s, key: k}}}]",
            "spec.env[X]"),
        Arguments.of(
            "a probe with two handlers",
            KIND,
            "probe",
            image
                + http
                + "readinessProbe: {httpGet: {path: /, port: http}, tcpSocket: {port: http}}",
            "spec.readinessProbe"),
        Arguments.of(
            "a volume with two sources",
            KIND,
            "volume",
            image + http + "volumes: [{name: v, emptyDir: {}, configMap: {name: c}}]",
            "spec.volumes[v]"),
        // The checks the reconciler reports as InvalidSpec.
        Arguments.of("a name with a dot", KIND, "web.one", image + http, "metadata.name"),
        Arguments.of(
            "a probe on a port the Service does not have",
            KIND,
            "probe-port",
            image + http + "livenessProbe: {tcpSocket: {port: admin}}",
            "spec.livenessProbe uses port 'admin'"),
        Arguments.of(
            "a request above its limit",
            KIND,
            "request",
            image + http + "resources: {requests: {memory: 2Gi}, limits: {memory: 1Gi}}",
            "spec.resources.requests.memory"),
        Arguments.of(
            "an ingress host that is an address",
            KIND,
            "ingress",
            image + http + "ingress: {host: '10.0.0.1'}",
            "spec.ingress.host"));
  }

  @Order(2)
  @Test
  void aGoodSpecIsStoredAndABadChangeRefused() throws Exception {
    Applied good = admission.apply(API, KIND, "good", GOOD);
    assertThat(good.exitCode()).as(good.output()).isZero();
    assertThat(admission.get(API, KIND, "good")).isNotNull();

    Applied bad =
        admission.apply(
            API, KIND, "good", GOOD + "\nautoscaling: {minReplicas: 5, maxReplicas: 2}");
    assertThat(bad.exitCode()).as(bad.output()).isNotZero();
    assertThat(bad.output())
        .contains("admission webhook \"updates.webservices.web.bosun.dev\" denied the request")
        .contains("invalid spec: spec.autoscaling.minReplicas (5) exceeds maxReplicas (2)");
  }

  @Order(3)
  @Test
  void withTheWebhookDownCreatesFailClosedWhileChangesStatusWritesAndDeletesPass()
      throws Exception {
    assertThat(admission.apply(API, KIND, "kept", GOOD).exitCode()).isZero();
    admission.stopWebhook();

    admission.assertCreateFailsClosed(API, KIND, "unseen", GOOD);

    // Updates fail open: the bad change is stored, and the operator reports it in status (a write
    // to the status subresource, which no rule matches).
    String bad = GOOD + "\nautoscaling: {minReplicas: 5, maxReplicas: 2}";
    Applied change = admission.apply(API, KIND, "kept", bad);
    assertThat(change.exitCode()).as(change.output()).isZero();
    try (RunningOperator operator =
        new RunningOperator(
                WebServiceOperator.NAME,
                (settings, running) -> Main.create(settings, running.client),
                "webservices.web.bosun.dev")
            .start()) {
      admission.awaitInvalidSpec(API, KIND, "kept", "spec.autoscaling.minReplicas");
    }

    admission.assertDeletedThroughAFinalizer(API, KIND, "kept");
  }
}
