package dev.bosun.web.dependent;

import static dev.bosun.web.WebServiceOperator.APP;
import static dev.bosun.web.WebServiceOperator.COMPONENT;
import static dev.bosun.web.WebServiceOperator.CONTAINER;

import dev.bosun.common.meta.Labels;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.model.WebServiceMapper;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceSpec;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.List;
import java.util.Optional;

/** The WebService's Deployment: its pods, rolled out without ever going below the ready count. */
@KubernetesDependent(informer = @Informer(labelSelector = WebServiceOperator.MANAGED_SELECTOR))
public class DeploymentDependent extends CRUDKubernetesDependentResource<Deployment, WebService> {

  private static final int REVISION_HISTORY = 5;

  public DeploymentDependent() {
    super(Deployment.class);
  }

  @Override
  protected Deployment desired(WebService primary, Context<WebService> context) {
    return desiredDeployment(primary, context.getSecondaryResource(Deployment.class));
  }

  /**
   * The Deployment a WebService asks for. While an autoscaler owns the replica count, the observed
   * count is kept, so applying never fights the autoscaler nor resets the Deployment to one pod.
   */
  public static Deployment desiredDeployment(WebService ws, Optional<Deployment> observed) {
    WebServiceSpec spec = ws.getSpec();
    WebServiceMapper map = WebServiceMapper.INSTANCE;
    String firstPort = spec.getPorts().get(0).getName();
    ContainerBuilder container =
        new ContainerBuilder()
            .withName(CONTAINER)
            .withImage(spec.getImage())
            .withImagePullPolicy(spec.getImagePullPolicy().getValue())
            // Empty lists, never null: JOSDK's pod template sanitizer dereferences them.
            .withCommand(orEmpty(spec.getCommand()))
            .withArgs(orEmpty(spec.getArgs()))
            .withPorts(map.containerPorts(spec.getPorts()))
            .withEnv(orEmpty(spec.getEnv()))
            .withEnvFrom(orEmpty(spec.getEnvFrom()));
    if (spec.getResources() != null) {
      container.withResources(map.resources(spec.getResources()));
    }
    if (spec.getReadinessProbe() != null) {
      container.withReadinessProbe(
          withDefaultPort(map.readiness(spec.getReadinessProbe()), firstPort));
    }
    if (spec.getLivenessProbe() != null) {
      container.withLivenessProbe(
          withDefaultPort(map.liveness(spec.getLivenessProbe()), firstPort));
    }
    return new DeploymentBuilder()
        .withMetadata(
            ChildMetadata.builder(ws)
                .addToAnnotations(
                    WebServiceOperator.SPEC_GENERATION,
                    String.valueOf(ws.getMetadata().getGeneration()))
                .build())
        .withNewSpec()
        .withReplicas(replicas(ws, observed))
        .withRevisionHistoryLimit(REVISION_HISTORY)
        .withProgressDeadlineSeconds(spec.getProgressDeadlineSeconds())
        .withNewSelector()
        .withMatchLabels(Labels.selector(ws, APP, COMPONENT))
        .endSelector()
        .withNewStrategy()
        .withType("RollingUpdate")
        .withNewRollingUpdate()
        // Never take a ready pod away before its replacement is ready.
        .withMaxUnavailable(new IntOrString(0))
        .withMaxSurge(new IntOrString("25%"))
        .endRollingUpdate()
        .endStrategy()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Labels.of(ws, APP, COMPONENT, WebServiceOperator.NAME))
        .endMetadata()
        .withNewSpec()
        .withContainers(container.build())
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  private static int replicas(WebService ws, Optional<Deployment> observed) {
    var autoscaling = ws.getSpec().getAutoscaling();
    if (autoscaling == null) {
      return ws.getSpec().getReplicas();
    }
    int min = autoscaling.getMinReplicas() == null ? 1 : autoscaling.getMinReplicas();
    int max = autoscaling.getMaxReplicas();
    int current = observed.map(d -> d.getSpec().getReplicas()).filter(r -> r != null).orElse(min);
    return Math.max(min, Math.min(max, current));
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static Probe withDefaultPort(Probe probe, String firstPort) {
    if (probe.getHttpGet() != null && probe.getHttpGet().getPort() == null) {
      probe.getHttpGet().setPort(new IntOrString(firstPort));
    }
    if (probe.getTcpSocket() != null && probe.getTcpSocket().getPort() == null) {
      probe.getTcpSocket().setPort(new IntOrString(firstPort));
    }
    return probe;
  }
}
