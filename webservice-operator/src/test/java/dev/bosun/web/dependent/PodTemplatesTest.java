package dev.bosun.web.dependent;

import static dev.bosun.web.dependent.DeploymentDependentTest.webService;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PodTemplatesTest {

  private static final String EVERY_POD_FIELD =
      """
      image: registry.example.com/team/app:1.4.2
      ports: [{port: 80, containerPort: 8080}]
      podLabels: {team: payments, app.kubernetes.io/version: "1.4.2"}
      podAnnotations: {prometheus.io/scrape: "true"}
      serviceAccountName: shop-runner
      imagePullSecrets: [{name: registry-creds}]
      nodeSelector: {disktype: ssd}
      tolerations:
        - {key: dedicated, operator: Equal, value: web, effect: NoSchedule}
        - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 30}
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 50
              podAffinityTerm:
                topologyKey: kubernetes.io/hostname
                labelSelector: {matchLabels: {app.kubernetes.io/instance: shop}}
      topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}
      volumes:
        - {name: config, configMap: {name: shop-config, items: [{key: app.yaml, path: app.yaml}]}}
        - {name: creds, secret: {secretName: shop-creds, defaultMode: 256}}
        - {name: scratch, emptyDir: {medium: Memory, sizeLimit: 64Mi}}
        - {name: data, persistentVolumeClaim: {claimName: shop-data}}
      volumeMounts:
        - {name: config, mountPath: /etc/shop, readOnly: true}
        - {name: creds, mountPath: /var/run/creds}
        - {name: scratch, mountPath: /tmp}
        - {name: data, mountPath: /data, subPath: shop}
      startupProbe: {httpGet: {path: /started}, failureThreshold: 30, periodSeconds: 2}
      securityContext: {runAsUser: 1000, fsGroup: 2000}
      rollingUpdate: {maxSurge: 1, maxUnavailable: 10%}
      """;

  private static PodTemplateSpec template(String spec) {
    return DeploymentDependent.desiredDeployment(webService(spec, 1), Optional.empty())
        .getSpec()
        .getTemplate();
  }

  @Test
  void everyPodFieldReachesThePodTemplate() {
    PodTemplateSpec t = template(EVERY_POD_FIELD);
    PodSpec pod = t.getSpec();
    assertThat(t.getMetadata().getLabels())
        .containsEntry("team", "payments")
        .containsEntry("app.kubernetes.io/version", "1.4.2")
        .containsEntry("app.kubernetes.io/instance", "shop");
    assertThat(t.getMetadata().getAnnotations()).containsEntry("prometheus.io/scrape", "true");
    assertThat(pod.getServiceAccountName()).isEqualTo("shop-runner");
    assertThat(pod.getImagePullSecrets())
        .extracting(r -> r.getName())
        .containsExactly("registry-creds");
    assertThat(pod.getNodeSelector()).containsExactly(Map.entry("disktype", "ssd"));
    assertThat(pod.getTolerations()).hasSize(2);
    assertThat(pod.getTolerations().get(1).getTolerationSeconds()).isEqualTo(30L);
    assertThat(
            pod.getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms()
                .get(0)
                .getMatchExpressions()
                .get(0)
                .getValues())
        .containsExactly("amd64");
    assertThat(
            pod.getAffinity()
                .getPodAntiAffinity()
                .getPreferredDuringSchedulingIgnoredDuringExecution()
                .get(0)
                .getPodAffinityTerm()
                .getTopologyKey())
        .isEqualTo("kubernetes.io/hostname");
    assertThat(pod.getVolumes())
        .extracting(v -> v.getName())
        .containsExactly("config", "creds", "scratch", "data");
    assertThat(pod.getVolumes().get(0).getConfigMap().getItems().get(0).getPath())
        .isEqualTo("app.yaml");
    assertThat(pod.getVolumes().get(1).getSecret().getDefaultMode()).isEqualTo(256);
    assertThat(pod.getVolumes().get(2).getEmptyDir().getSizeLimit())
        .isEqualTo(new Quantity("64Mi"));
    assertThat(pod.getVolumes().get(3).getPersistentVolumeClaim().getClaimName())
        .isEqualTo("shop-data");
    assertThat(pod.getSecurityContext().getFsGroup()).isEqualTo(2000L);

    Container c = pod.getContainers().get(0);
    assertThat(c.getVolumeMounts())
        .extracting(m -> m.getMountPath())
        .containsExactly("/etc/shop", "/var/run/creds", "/tmp", "/data");
    assertThat(c.getVolumeMounts().get(3).getSubPath()).isEqualTo("shop");
    assertThat(c.getStartupProbe().getHttpGet().getPath()).isEqualTo("/started");
    assertThat(c.getStartupProbe().getHttpGet().getPort()).isEqualTo(new IntOrString("http"));
    assertThat(c.getStartupProbe().getFailureThreshold()).isEqualTo(30);
    assertThat(c.getSecurityContext().getRunAsUser()).isEqualTo(1000L);
    // The safe defaults stay in place beside what the user set.
    assertThat(c.getSecurityContext().getRunAsNonRoot()).isTrue();
  }

  @Test
  void aSpreadConstraintWithoutSelectorSpreadsThisWebServicesPods() {
    var constraint = template(EVERY_POD_FIELD).getSpec().getTopologySpreadConstraints().get(0);
    assertThat(constraint.getLabelSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/instance", "shop")
        .containsEntry("app.kubernetes.io/name", "webservice")
        .hasSize(3);
  }

  @Test
  void bosunsLabelsWinOverPodLabels() {
    // The validator refuses these keys; the template never lets them through either.
    PodTemplateSpec t =
        template(
            """
            image: registry.example.com/team/app:1.4.2
            ports: [{port: 80}]
            podLabels: {app.kubernetes.io/instance: other}
            """);
    assertThat(t.getMetadata().getLabels()).containsEntry("app.kubernetes.io/instance", "shop");
  }

  @Test
  void theSecurityContextIsSafeByDefault() {
    Container c =
        template(
                """
                image: registry.example.com/team/app:1.4.2
                ports: [{port: 80}]
                """)
            .getSpec()
            .getContainers()
            .get(0);
    var sc = c.getSecurityContext();
    assertThat(sc.getRunAsNonRoot()).isTrue();
    assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
    assertThat(sc.getReadOnlyRootFilesystem()).isFalse();
    assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(sc.getCapabilities().getAdd()).isNullOrEmpty();
    assertThat(sc.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
  }

  @Test
  void eachSafeDefaultCanBeRelaxedExplicitly() {
    var sc =
        template(
                """
                image: registry.example.com/team/app:1.4.2
                ports: [{port: 80}]
                securityContext:
                  runAsNonRoot: false
                  allowPrivilegeEscalation: true
                  capabilities: {drop: [], add: [NET_BIND_SERVICE]}
                  seccompProfile: {type: Unconfined}
                """)
            .getSpec()
            .getContainers()
            .get(0)
            .getSecurityContext();
    assertThat(sc.getRunAsNonRoot()).isFalse();
    assertThat(sc.getAllowPrivilegeEscalation()).isTrue();
    assertThat(sc.getCapabilities().getDrop()).isEmpty();
    assertThat(sc.getCapabilities().getAdd()).containsExactly("NET_BIND_SERVICE");
    assertThat(sc.getSeccompProfile().getType()).isEqualTo("Unconfined");
  }

  @Test
  void aSinglePortNeedsNoName() {
    Deployment d =
        DeploymentDependent.desiredDeployment(
            webService(
                """
                image: registry.example.com/team/app:1.4.2
                ports: [{port: 80, containerPort: 8080}]
                readinessProbe: {tcpSocket: {}}
                """,
                1),
            Optional.empty());
    Container c = d.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(c.getPorts().get(0).getName()).isEqualTo("http");
    assertThat(c.getReadinessProbe().getTcpSocket().getPort()).isEqualTo(new IntOrString("http"));
  }

  @Test
  void rollingUpdateDefaultsNeverGoBelowTheReadyCountAndCanBeChanged() {
    Deployment byDefault =
        DeploymentDependent.desiredDeployment(
            webService("image: registry.example.com/a:1\nports: [{port: 80}]\n", 1),
            Optional.empty());
    assertThat(byDefault.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable())
        .isEqualTo(new IntOrString(0));
    assertThat(byDefault.getSpec().getStrategy().getRollingUpdate().getMaxSurge())
        .isEqualTo(new IntOrString("25%"));
    Deployment changed =
        DeploymentDependent.desiredDeployment(webService(EVERY_POD_FIELD, 1), Optional.empty());
    assertThat(changed.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable())
        .isEqualTo(new IntOrString("10%"));
    assertThat(changed.getSpec().getStrategy().getRollingUpdate().getMaxSurge())
        .isEqualTo(new IntOrString(1));
  }

  @Test
  void sidecarsInitContainersHooksAndGracePeriodReachThePod() {
    PodSpec pod =
        template(
                """
                image: registry.example.com/shop:1
                ports: [{port: 80, containerPort: 8080}]
                terminationGracePeriodSeconds: 45
                lifecycle:
                  preStop: {exec: {command: [sleep, "5"]}}
                  postStart: {httpGet: {path: /warm}}
                volumes: [{name: config, configMap: {name: shop-config}}]
                sidecars:
                  - name: proxy
                    image: envoyproxy/envoy:v1.30.1
                    args: [-c, /etc/envoy/envoy.yaml]
                    ports: [{name: admin, containerPort: 9901}]
                    readinessProbe: {httpGet: {path: /ready}}
                    volumeMounts: [{name: config, mountPath: /etc/envoy, readOnly: true}]
                    resources: {requests: {cpu: 50m}}
                initContainers:
                  - name: migrate
                    image: registry.example.com/shop-migrate:1
                    command: [migrate, up]
                    envFrom: [{secretRef: {name: db}}]
                """)
            .getSpec();
    assertThat(pod.getTerminationGracePeriodSeconds()).isEqualTo(45L);
    assertThat(pod.getContainers()).extracting(Container::getName).containsExactly("app", "proxy");
    Container app = pod.getContainers().get(0);
    assertThat(app.getLifecycle().getPreStop().getExec().getCommand())
        .containsExactly("sleep", "5");
    // An httpGet hook without a port uses the first port, as probes do.
    assertThat(app.getLifecycle().getPostStart().getHttpGet().getPort())
        .isEqualTo(new IntOrString("http"));

    Container proxy = pod.getContainers().get(1);
    assertThat(proxy.getImage()).isEqualTo("envoyproxy/envoy:v1.30.1");
    assertThat(proxy.getArgs()).containsExactly("-c", "/etc/envoy/envoy.yaml");
    assertThat(proxy.getReadinessProbe().getHttpGet().getPort())
        .isEqualTo(new IntOrString("admin"));
    assertThat(proxy.getVolumeMounts().get(0).getMountPath()).isEqualTo("/etc/envoy");
    assertThat(proxy.getResources().getRequests()).containsEntry("cpu", new Quantity("50m"));
    assertThat(proxy.getCommand()).isEmpty();
    // Every container runs under the same safe defaults as the main one.
    assertThat(proxy.getSecurityContext()).isEqualTo(app.getSecurityContext());

    assertThat(pod.getInitContainers())
        .singleElement()
        .satisfies(
            init -> {
              assertThat(init.getName()).isEqualTo("migrate");
              assertThat(init.getCommand()).containsExactly("migrate", "up");
              assertThat(init.getEnvFrom().get(0).getSecretRef().getName()).isEqualTo("db");
              assertThat(init.getSecurityContext()).isEqualTo(app.getSecurityContext());
            });
  }

  @Test
  void theSpecsObjectsAreNotChangedByDefaulting() {
    var ws =
        webService(
            """
            image: registry.example.com/shop:1
            ports: [{port: 80}]
            lifecycle: {preStop: {httpGet: {path: /drain}}}
            sidecars: [{name: proxy, image: envoy, ports: [{containerPort: 9901}], readinessProbe: {tcpSocket: {}}}]
            """,
            1);
    DeploymentDependent.desiredDeployment(ws, Optional.empty());
    // The spec is the informer cache's copy: the defaults go into the template only.
    assertThat(ws.getSpec().getLifecycle().getPreStop().getHttpGet().getPort()).isNull();
    assertThat(ws.getSpec().getSidecars().get(0).getReadinessProbe().getTcpSocket().getPort())
        .isNull();
  }

  @Test
  void absentOptionalFieldsLeaveThePodSpecClean() {
    PodSpec pod = template("image: registry.example.com/a:1\nports: [{port: 80}]\n").getSpec();
    assertThat(pod.getVolumes()).isEmpty();
    assertThat(pod.getTolerations()).isEmpty();
    assertThat(pod.getNodeSelector()).isNullOrEmpty();
    assertThat(pod.getAffinity()).isNull();
    assertThat(pod.getServiceAccountName()).isNull();
    assertThat(pod.getSecurityContext()).isNull();
    assertThat(pod.getContainers().get(0).getStartupProbe()).isNull();
    assertThat(pod.getContainers()).hasSize(1);
    assertThat(pod.getInitContainers()).isEmpty();
    assertThat(pod.getContainers().get(0).getLifecycle()).isNull();
    assertThat(pod.getTerminationGracePeriodSeconds()).isNull();
  }
}
