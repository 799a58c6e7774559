package dev.bosun.web.crd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.Crds;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The real API server rejects malformed WebServices with a message naming the field. */
@ExtendWith(ControlPlaneExtension.class)
class WebServiceSchemaIT {

  private static final String NS = "webservice-schema";
  private static KubernetesClient client;

  @BeforeAll
  static void installCrd() {
    client = ControlPlaneExtension.controlPlane().adminClient();
    Crds.install(client, "webservices.web.bosun.dev");
    Crds.namespace(client, NS, java.util.Map.of(), java.util.Map.of());
  }

  @AfterAll
  static void cleanup() {
    client.namespaces().withName(NS).delete();
    client.close();
  }

  private static GenericKubernetesResource create(String name, String spec) {
    return Crds.createRaw(client, "web.bosun.dev/v1alpha1", "WebService", NS, name, spec);
  }

  static final String VALID_PORTS = "ports: [{name: http, port: 80}]";

  static Stream<Arguments> invalidWebServices() {
    return Stream.of(
        Arguments.of("no image", VALID_PORTS, "spec.image: Required value"),
        Arguments.of("no ports", "image: nginx:1.25", "spec.ports: Required value"),
        Arguments.of("empty ports", "image: nginx:1.25\nports: []", "spec.ports"),
        Arguments.of("image with spaces", "image: 'not an image'\n" + VALID_PORTS, "spec.image"),
        Arguments.of("upper-case image", "image: NGINX:1\n" + VALID_PORTS, "spec.image"),
        Arguments.of(
            "negative replicas",
            "image: nginx:1.25\nreplicas: -1\n" + VALID_PORTS,
            "spec.replicas"),
        Arguments.of(
            "too many replicas",
            "image: nginx:1.25\nreplicas: 5000\n" + VALID_PORTS,
            "spec.replicas"),
        Arguments.of(
            "replicas as text",
            "image: nginx:1.25\nreplicas: many\n" + VALID_PORTS,
            "spec.replicas"),
        Arguments.of(
            "port 0", "image: nginx:1.25\nports: [{name: http, port: 0}]", "spec.ports.port"),
        Arguments.of(
            "port 70000",
            "image: nginx:1.25\nports: [{name: http, port: 70000}]",
            "spec.ports.port"),
        Arguments.of(
            "bad port name",
            "image: nginx:1.25\nports: [{name: HTTP_1, port: 80}]",
            "spec.ports.name"),
        Arguments.of(
            "two ports without names",
            "image: nginx:1.25\nports: [{port: 80}, {port: 81}]",
            "Duplicate value"),
        Arguments.of(
            "duplicate port names",
            "image: nginx:1.25\nports: [{name: http, port: 80}, {name: http, port: 81}]",
            "Duplicate value"),
        Arguments.of(
            "nodePort out of range",
            "image: nginx:1.25\nservice: {type: NodePort}\nports: [{name: http, port: 80, nodePort: 80}]",
            "spec.ports.nodePort"),
        Arguments.of(
            "unknown protocol",
            "image: nginx:1.25\nports: [{name: http, port: 80, protocol: HTTP}]",
            "spec.ports.protocol"),
        Arguments.of(
            "unknown service type",
            "image: nginx:1.25\nservice: {type: ExternalName}\n" + VALID_PORTS,
            "spec.service.type"),
        Arguments.of(
            "unknown pull policy",
            "image: nginx:1.25\nimagePullPolicy: Sometimes\n" + VALID_PORTS,
            "spec.imagePullPolicy"),
        Arguments.of(
            "bad cpu quantity",
            "image: nginx:1.25\nresources: {requests: {cpu: lots}}\n" + VALID_PORTS,
            "spec.resources.requests.cpu"),
        Arguments.of(
            "bad memory quantity",
            "image: nginx:1.25\nresources: {limits: {memory: 1.5Gb}}\n" + VALID_PORTS,
            "spec.resources.limits.memory"),
        Arguments.of(
            "probe period 0",
            "image: nginx:1.25\nreadinessProbe: {tcpSocket: {}, periodSeconds: 0}\n" + VALID_PORTS,
            "spec.readinessProbe.periodSeconds"),
        Arguments.of(
            "probe path without slash",
            "image: nginx:1.25\nlivenessProbe: {httpGet: {path: healthz}}\n" + VALID_PORTS,
            "spec.livenessProbe.httpGet.path"),
        Arguments.of(
            "autoscaling without max",
            "image: nginx:1.25\nautoscaling: {minReplicas: 2}\n" + VALID_PORTS,
            "spec.autoscaling.maxReplicas"),
        Arguments.of(
            "cpu target 150%",
            "image: nginx:1.25\nautoscaling: {maxReplicas: 3, targetCPUUtilizationPercentage: 150}\n"
                + VALID_PORTS,
            "spec.autoscaling.targetCPUUtilizationPercentage"),
        Arguments.of(
            "bad env name",
            "image: nginx:1.25\nenv: [{name: '1 bad', value: x}]\n" + VALID_PORTS,
            "spec.env.name"),
        Arguments.of(
            "env valueFrom with two sources",
            "image: nginx:1.25\nenv: [{name: A, valueFrom: {configMapKeyRef: {name: c, key: k}, secretKeyRef: {name: s, key: k}}}]\n"
                + VALID_PORTS,
            "spec.env.valueFrom"),
        Arguments.of(
            "volume name with upper case",
            "image: nginx:1.25\nvolumes: [{name: Data, emptyDir: {}}]\n" + VALID_PORTS,
            "spec.volumes.name"),
        Arguments.of(
            "volume name too long",
            "image: nginx:1.25\nvolumes: [{name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, emptyDir: {}}]\n"
                + VALID_PORTS,
            "spec.volumes.name"),
        Arguments.of(
            "configMap volume without name",
            "image: nginx:1.25\nvolumes: [{name: c, configMap: {}}]\n" + VALID_PORTS,
            "spec.volumes.configMap.name"),
        Arguments.of(
            "secret mode above 0777",
            "image: nginx:1.25\nvolumes: [{name: s, secret: {secretName: s, defaultMode: 512}}]\n"
                + VALID_PORTS,
            "spec.volumes.secret.defaultMode"),
        Arguments.of(
            "emptyDir medium unknown",
            "image: nginx:1.25\nvolumes: [{name: e, emptyDir: {medium: Disk}}]\n" + VALID_PORTS,
            "spec.volumes.emptyDir.medium"),
        Arguments.of(
            "relative mount path",
            "image: nginx:1.25\nvolumeMounts: [{name: v, mountPath: data}]\n" + VALID_PORTS,
            "spec.volumeMounts.mountPath"),
        Arguments.of(
            "same mount path twice",
            "image: nginx:1.25\nvolumes: [{name: v, emptyDir: {}}]\nvolumeMounts: [{name: v, mountPath: /d}, {name: v, mountPath: /d}]\n"
                + VALID_PORTS,
            "Duplicate value"),
        Arguments.of(
            "absolute subPath",
            "image: nginx:1.25\nvolumeMounts: [{name: v, mountPath: /d, subPath: /etc}]\n"
                + VALID_PORTS,
            "spec.volumeMounts.subPath"),
        Arguments.of(
            "service account with upper case",
            "image: nginx:1.25\nserviceAccountName: Runner\n" + VALID_PORTS,
            "spec.serviceAccountName"),
        Arguments.of(
            "pull secret without name",
            "image: nginx:1.25\nimagePullSecrets: [{}]\n" + VALID_PORTS,
            "spec.imagePullSecrets.name"),
        Arguments.of(
            "pod label value too long",
            "image: nginx:1.25\npodLabels: {team: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx}\n"
                + VALID_PORTS,
            "spec.podLabels"),
        Arguments.of(
            "pod label value with spaces",
            "image: nginx:1.25\npodLabels: {team: 'a b'}\n" + VALID_PORTS,
            "spec.podLabels"),
        Arguments.of(
            "node selector value too long",
            "image: nginx:1.25\nnodeSelector: {zone: zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz}\n"
                + VALID_PORTS,
            "spec.nodeSelector"),
        Arguments.of(
            "toleration operator unknown",
            "image: nginx:1.25\ntolerations: [{key: k, operator: Near}]\n" + VALID_PORTS,
            "spec.tolerations.operator"),
        Arguments.of(
            "toleration effect unknown",
            "image: nginx:1.25\ntolerations: [{key: k, effect: Sometimes}]\n" + VALID_PORTS,
            "spec.tolerations.effect"),
        Arguments.of(
            "affinity weight 0",
            "image: nginx:1.25\naffinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 0, podAffinityTerm: {topologyKey: z}}]}}\n"
                + VALID_PORTS,
            "weight"),
        Arguments.of(
            "pod affinity term without topologyKey",
            "image: nginx:1.25\naffinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {}}]}}\n"
                + VALID_PORTS,
            "topologyKey"),
        Arguments.of(
            "node affinity operator unknown",
            "image: nginx:1.25\naffinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: Like}]}]}}}\n"
                + VALID_PORTS,
            "operator"),
        Arguments.of(
            "spread maxSkew 0",
            "image: nginx:1.25\ntopologySpreadConstraints: [{maxSkew: 0, topologyKey: z, whenUnsatisfiable: DoNotSchedule}]\n"
                + VALID_PORTS,
            "spec.topologySpreadConstraints.maxSkew"),
        Arguments.of(
            "spread without whenUnsatisfiable",
            "image: nginx:1.25\ntopologySpreadConstraints: [{maxSkew: 1, topologyKey: z}]\n"
                + VALID_PORTS,
            "spec.topologySpreadConstraints.whenUnsatisfiable"),
        Arguments.of(
            "negative runAsUser",
            "image: nginx:1.25\nsecurityContext: {runAsUser: -1}\n" + VALID_PORTS,
            "spec.securityContext.runAsUser"),
        Arguments.of(
            "lower-case capability",
            "image: nginx:1.25\nsecurityContext: {capabilities: {add: [net_admin]}}\n"
                + VALID_PORTS,
            "spec.securityContext.capabilities.add"),
        Arguments.of(
            "seccomp type unknown",
            "image: nginx:1.25\nsecurityContext: {seccompProfile: {type: Strict}}\n" + VALID_PORTS,
            "spec.securityContext.seccompProfile.type"),
        Arguments.of(
            "maxSurge 200%",
            "image: nginx:1.25\nrollingUpdate: {maxSurge: 200%}\n" + VALID_PORTS,
            "spec.rollingUpdate.maxSurge"),
        Arguments.of(
            "negative maxUnavailable",
            "image: nginx:1.25\nrollingUpdate: {maxUnavailable: -1}\n" + VALID_PORTS,
            "spec.rollingUpdate.maxUnavailable"),
        Arguments.of(
            "startup probe period 0",
            "image: nginx:1.25\nstartupProbe: {tcpSocket: {}, periodSeconds: 0}\n" + VALID_PORTS,
            "spec.startupProbe.periodSeconds"),
        Arguments.of(
            "ingress without host",
            "image: nginx:1.25\ningress: {className: nginx}\n" + VALID_PORTS,
            "spec.ingress.host"),
        Arguments.of(
            "ingress host with upper case",
            "image: nginx:1.25\ningress: {host: Shop.example.com}\n" + VALID_PORTS,
            "spec.ingress.host"),
        Arguments.of(
            "ingress path without slash",
            "image: nginx:1.25\ningress: {host: a.example.com, paths: [{path: api}]}\n"
                + VALID_PORTS,
            "spec.ingress.paths.path"),
        Arguments.of(
            "ingress path type unknown",
            "image: nginx:1.25\ningress: {host: a.example.com, paths: [{path: /, pathType: Regex}]}\n"
                + VALID_PORTS,
            "spec.ingress.paths.pathType"),
        Arguments.of(
            "ingress TLS secret with upper case",
            "image: nginx:1.25\ningress: {host: a.example.com, tlsSecretName: TLS}\n" + VALID_PORTS,
            "spec.ingress.tlsSecretName"),
        Arguments.of(
            "budget maxUnavailable 0",
            "image: nginx:1.25\ndisruptionBudget: {maxUnavailable: 0}\n" + VALID_PORTS,
            "spec.disruptionBudget.maxUnavailable"),
        Arguments.of(
            "canary without steps",
            "image: nginx:1.25\nrollout: {canary: {}}\n" + VALID_PORTS,
            "spec.rollout.canary.steps"),
        Arguments.of(
            "canary with no step",
            "image: nginx:1.25\nrollout: {canary: {steps: []}}\n" + VALID_PORTS,
            "spec.rollout.canary.steps"),
        Arguments.of(
            "canary weight 0",
            "image: nginx:1.25\nrollout: {canary: {steps: [{weight: 0}]}}\n" + VALID_PORTS,
            "spec.rollout.canary.steps.weight"),
        Arguments.of(
            "canary weight 100",
            "image: nginx:1.25\nrollout: {canary: {steps: [{weight: 100}]}}\n" + VALID_PORTS,
            "spec.rollout.canary.steps.weight"),
        Arguments.of(
            "canary negative pause",
            "image: nginx:1.25\nrollout: {canary: {steps: [{weight: 10, pauseSeconds: -1}]}}\n"
                + VALID_PORTS,
            "spec.rollout.canary.steps.pauseSeconds"),
        Arguments.of(
            "canary ready deadline 5s",
            "image: nginx:1.25\nrollout: {canary: {readyDeadlineSeconds: 5, steps: [{weight: 10}]}}\n"
                + VALID_PORTS,
            "spec.rollout.canary.readyDeadlineSeconds"),
        Arguments.of(
            "progress deadline 1s",
            "image: nginx:1.25\nprogressDeadlineSeconds: 1\n" + VALID_PORTS,
            "spec.progressDeadlineSeconds"),
        Arguments.of(
            "sidecar without image",
            "image: nginx:1.25\nsidecars: [{name: proxy}]\n" + VALID_PORTS,
            "spec.sidecars.image: Required value"),
        Arguments.of(
            "sidecar with an upper-case name",
            "image: nginx:1.25\nsidecars: [{name: Proxy, image: envoy}]\n" + VALID_PORTS,
            "spec.sidecars.name"),
        Arguments.of(
            "two sidecars of one name",
            "image: nginx:1.25\nsidecars: [{name: p, image: a}, {name: p, image: b}]\n"
                + VALID_PORTS,
            "Duplicate value"),
        Arguments.of(
            "nine init containers",
            "image: nginx:1.25\ninitContainers: ["
                + "{name: a, image: i}, {name: b, image: i}, {name: c, image: i},"
                + " {name: d, image: i}, {name: e, image: i}, {name: f, image: i},"
                + " {name: g, image: i}, {name: h, image: i}, {name: j, image: i}]\n"
                + VALID_PORTS,
            "spec.initContainers in body should have at most 8 items"),
        Arguments.of(
            "preStop with two handlers",
            "image: nginx:1.25\nlifecycle: {preStop: {exec: {command: [x]}, httpGet: {path: /}}}\n"
                + VALID_PORTS,
            "spec.lifecycle.preStop"),
        Arguments.of(
            "postStart httpGet without a slash",
            "image: nginx:1.25\nlifecycle: {postStart: {httpGet: {path: warm}}}\n" + VALID_PORTS,
            "spec.lifecycle.postStart.httpGet.path"),
        Arguments.of(
            "grace period of two hours",
            "image: nginx:1.25\nterminationGracePeriodSeconds: 7200\n" + VALID_PORTS,
            "spec.terminationGracePeriodSeconds"),
        Arguments.of(
            "memory target 0",
            "image: nginx:1.25\nautoscaling: {maxReplicas: 3, targetMemoryUtilizationPercentage:"
                + " 0}\n"
                + VALID_PORTS,
            "spec.autoscaling.targetMemoryUtilizationPercentage"),
        Arguments.of(
            "custom metric without a target",
            "image: nginx:1.25\nautoscaling: {maxReplicas: 3, customMetrics: [{name: rps}]}\n"
                + VALID_PORTS,
            "spec.autoscaling.customMetrics.averageValue: Required value"),
        Arguments.of(
            "custom metric target as words",
            "image: nginx:1.25\nautoscaling: {maxReplicas: 3, customMetrics: [{name: rps,"
                + " averageValue: lots}]}\n"
                + VALID_PORTS,
            "spec.autoscaling.customMetrics.averageValue"),
        Arguments.of(
            "analysis without http",
            "image: nginx:1.25\nrollout: {canary: {steps: [{weight: 10}], analysis: {}}}\n"
                + VALID_PORTS,
            "spec.rollout.canary.analysis.http: Required value"),
        Arguments.of(
            "analysis of 3 samples",
            "image: nginx:1.25\nrollout: {canary: {steps: [{weight: 10}], analysis: {http: {path:"
                + " /, samplesPerStep: 3}}}}\n"
                + VALID_PORTS,
            "spec.rollout.canary.analysis.http.samplesPerStep"),
        Arguments.of(
            "analysis at 100 requests a second",
            "image: nginx:1.25\nrollout: {canary: {steps: [{weight: 10}], analysis: {http: {path:"
                + " /, requestsPerSecond: 100}}}}\n"
                + VALID_PORTS,
            "spec.rollout.canary.analysis.http.requestsPerSecond"),
        Arguments.of(
            "analysis expecting status 700",
            "image: nginx:1.25\nrollout: {canary: {steps: [{weight: 10}], analysis: {http: {path:"
                + " /, expectedStatus: 700}}}}\n"
                + VALID_PORTS,
            "spec.rollout.canary.analysis.http.expectedStatus"),
        Arguments.of(
            "prometheus gate with a word for a maximum",
            "image: nginx:1.25\nrollout: {canary: {steps: [{weight: 10}], analysis: {http: {path:"
                + " /}, prometheus: {url: 'http://prom:9090', query: up, maxValue: low}}}}\n"
                + VALID_PORTS,
            "spec.rollout.canary.analysis.prometheus.maxValue"),
        Arguments.of(
            "prometheus gate without a query",
            "image: nginx:1.25\nrollout: {canary: {steps: [{weight: 10}], analysis: {http: {path:"
                + " /}, prometheus: {url: 'http://prom:9090', maxValue: '0.1'}}}}\n"
                + VALID_PORTS,
            "spec.rollout.canary.analysis.prometheus.query: Required value"));
  }

  @Test
  void podFeaturesAreAccepted() {
    GenericKubernetesResource created =
        create(
            "pod-features",
            """
            image: nginx:1.25
            ports: [{name: http, port: 80}]
            terminationGracePeriodSeconds: 45
            lifecycle:
              preStop: {exec: {command: [sleep, "5"]}}
              postStart: {httpGet: {path: /warm}}
            sidecars:
              - name: proxy
                image: envoyproxy/envoy:v1.30.1
                ports: [{name: admin, containerPort: 9901}]
                readinessProbe: {httpGet: {path: /ready, port: admin}}
            initContainers:
              - {name: migrate, image: registry.example.com/migrate:1, command: [migrate]}
            resources: {requests: {memory: 128Mi}}
            autoscaling:
              maxReplicas: 4
              targetMemoryUtilizationPercentage: 70
              customMetrics: [{name: http_requests_per_second, averageValue: 500m}]
            """);
    @SuppressWarnings("unchecked")
    var spec = (java.util.Map<String, Object>) created.getAdditionalProperties().get("spec");
    assertThat(spec).containsEntry("terminationGracePeriodSeconds", 45);
    assertThat(spec.get("sidecars").toString()).contains("proxy").contains("protocol=TCP");
    assertThat(spec.get("initContainers").toString()).contains("migrate");
    assertThat(spec.get("autoscaling").toString())
        .contains("targetCPUUtilizationPercentage=80")
        .contains("http_requests_per_second");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidWebServices")
  void rejected(String description, String spec, String expectedMessage) {
    String name = description.toLowerCase().replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
    assertThatThrownBy(() -> create(name, spec))
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(422))
        .hasMessageContaining(expectedMessage);
  }

  @Test
  void aMinimalWebServiceIsAcceptedAndDefaulted() {
    GenericKubernetesResource created = create("minimal", "image: nginx:1.25\n" + VALID_PORTS);
    @SuppressWarnings("unchecked")
    var spec = (java.util.Map<String, Object>) created.getAdditionalProperties().get("spec");
    assertThat(spec)
        .containsEntry("replicas", 1)
        .containsEntry("imagePullPolicy", "IfNotPresent")
        .containsEntry("progressDeadlineSeconds", 600)
        .containsEntry("service", java.util.Map.of("type", "ClusterIP"))
        .containsEntry("rollingUpdate", java.util.Map.of("maxSurge", "25%", "maxUnavailable", 0))
        .containsEntry(
            "securityContext",
            java.util.Map.of(
                "runAsNonRoot",
                true,
                "allowPrivilegeEscalation",
                false,
                "readOnlyRootFilesystem",
                false,
                "capabilities",
                java.util.Map.of("drop", java.util.List.of("ALL")),
                "seccompProfile",
                java.util.Map.of("type", "RuntimeDefault")));
  }

  @Test
  void aSinglePortNeedsNoName() {
    GenericKubernetesResource created =
        create("unnamed-port", "image: nginx:1.25\nports: [{port: 80, containerPort: 8080}]");
    @SuppressWarnings("unchecked")
    var spec = (java.util.Map<String, Object>) created.getAdditionalProperties().get("spec");
    assertThat(spec.get("ports"))
        .isEqualTo(
            java.util.List.of(
                java.util.Map.of(
                    "name", "http", "port", 80, "containerPort", 8080, "protocol", "TCP")));
  }

  @Test
  void theSampleIsAcceptedByTheServer() throws Exception {
    try (var in =
        java.nio.file.Files.newInputStream(java.nio.file.Path.of("samples/hello-web.yaml"))) {
      var item = client.load(in).items().get(0);
      var accepted = client.resource(item).inNamespace(NS).dryRun().create();
      assertThat(accepted.getMetadata().getName()).isEqualTo("hello-web");
    }
  }
}
