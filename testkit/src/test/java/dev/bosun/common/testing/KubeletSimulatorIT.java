package dev.bosun.common.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The local control plane runs Deployments to completion with the simulated kubelet. */
@ExtendWith(ControlPlaneExtension.class)
class KubeletSimulatorIT {

  private final KubernetesClient client = ControlPlaneExtension.controlPlane().adminClient();
  private String ns;

  @BeforeEach
  void namespace() {
    ns = "kubelet-" + UUID.randomUUID().toString().substring(0, 8);
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
  }

  @AfterEach
  void cleanup() {
    client.namespaces().withName(ns).delete();
    client.close();
  }

  private Deployment deployment(String name, String image, int replicas) {
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector()
        .addToMatchLabels("app", name)
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .addToLabels("app", name)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withImage(image)
        .endContainer()
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  @Test
  void deploymentBecomesAvailableAndScalesDown() {
    client
        .apps()
        .deployments()
        .inNamespace(ns)
        .resource(deployment("web", "nginx:1.25", 3))
        .create();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(
                        client
                            .apps()
                            .deployments()
                            .inNamespace(ns)
                            .withName("web")
                            .get()
                            .getStatus()
                            .getAvailableReplicas())
                    .isEqualTo(3));
    client.apps().deployments().inNamespace(ns).withName("web").scale(1);
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> assertThat(client.pods().inNamespace(ns).list().getItems()).hasSize(1));
  }

  @Test
  void podsOfAFailingImageReportImagePullBackOff() {
    ControlPlaneExtension.kubelet().fail("broken-image", PodFailure.IMAGE_PULL_BACKOFF);
    client
        .apps()
        .deployments()
        .inNamespace(ns)
        .resource(deployment("bad", "example/broken-image:1", 1))
        .create();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              assertThat(client.pods().inNamespace(ns).list().getItems()).hasSize(1);
              Pod pod = client.pods().inNamespace(ns).list().getItems().get(0);
              assertThat(pod.getStatus().getContainerStatuses()).isNotEmpty();
              assertThat(
                      pod.getStatus()
                          .getContainerStatuses()
                          .get(0)
                          .getState()
                          .getWaiting()
                          .getReason())
                  .isEqualTo("ImagePullBackOff");
              assertThat(pod.getSpec().getNodeName()).isEqualTo(KubeletSimulator.NODE_NAME);
            });
  }
}
