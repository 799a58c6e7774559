package dev.bosun.platform;

import static org.awaitility.Awaitility.await;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import dev.bosun.common.testing.ChartAssertions;
import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.ServiceAccountTokens;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The umbrella chart installed by helm-java, once per test JVM: its CRDs, ServiceAccounts, RBAC and
 * operator Deployments. On the local control plane the kubelet simulator marks those Pods Ready
 * while the operators run in this JVM (or as child processes) under the ServiceAccounts' tokens,
 * without the admission webhooks (nothing there routes a Service to a Pod); on kind the Pods run
 * the operator images, webhooks on.
 */
public final class PlatformRelease {

  static final String RELEASE = "bosun";
  public static final String NAMESPACE = "bosun-system";
  private static PlatformRelease shared;

  private final E2eCluster cluster;
  private final KubernetesClient admin;

  private PlatformRelease(E2eCluster cluster) {
    this.cluster = cluster;
    this.admin = cluster.adminClient();
  }

  /** The release of this JVM, installed on first use. */
  public static synchronized PlatformRelease shared() {
    if (shared == null) {
      E2eCluster cluster = E2eCluster.current();
      if (!cluster.operatorsInCluster()) {
        ControlPlaneExtension.kubelet();
      }
      shared = install(cluster);
    }
    return shared;
  }

  /** Installs the release onto {@code cluster} and waits for its ServiceAccounts' tokens. */
  static PlatformRelease install(E2eCluster cluster) {
    PlatformRelease release = new PlatformRelease(cluster);
    release.install();
    return release;
  }

  private void install() {
    InstallCommand install =
        new Helm(PlatformChart.dir())
            .install()
            .withName(RELEASE)
            .withNamespace(NAMESPACE)
            .createNamespace()
            .withKubeConfig(cluster.kubeconfig());
    if (!cluster.operatorsInCluster()) {
      // The simulated kubelet runs no Pod and no kube-proxy: the API server could not reach a
      // webhook Service, and every create would be refused. The webhook is proven where its Pods
      // run (RealNodePlatformIT) and in each operator's AdmissionIT.
      for (String operator : PlatformChart.OPERATORS) {
        install.set(operator + ".webhook.enabled", "false");
      }
    }
    install.call();
    try {
      await("the operators' Deployments and ServiceAccount tokens of the release")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  PlatformChart.OPERATORS.stream()
                      .allMatch(op -> deploymentOrNull(op) != null && tokenOrNull(op) != null));
    } catch (ConditionTimeoutException e) {
      throw new IllegalStateException(
          "the release is incomplete: Deployments "
              + admin.apps().deployments().inNamespace(NAMESPACE).list().getItems().stream()
                  .map(d -> d.getMetadata().getName() + d.getMetadata().getLabels())
                  .toList()
              + ", ServiceAccounts "
              + admin.serviceAccounts().inNamespace(NAMESPACE).list().getItems().stream()
                  .map(a -> a.getMetadata().getName() + " secrets=" + a.getSecrets())
                  .toList(),
          e);
    }
  }

  /** A cluster-admin client (closed with the JVM). */
  public KubernetesClient admin() {
    return admin;
  }

  /** The chart's Deployment of an operator ({@code webservice}, {@code etcd}, …). */
  public Deployment deployment(String operator) {
    Deployment d = deploymentOrNull(operator);
    if (d == null) {
      throw new IllegalStateException("the release has no Deployment for " + operator);
    }
    return d;
  }

  private Deployment deploymentOrNull(String operator) {
    return admin
        .apps()
        .deployments()
        .inNamespace(NAMESPACE)
        .withLabel("app.kubernetes.io/name", PlatformChart.chartName(operator))
        .list()
        .getItems()
        .stream()
        .findFirst()
        .orElse(null);
  }

  /**
   * The environment the chart gives the operator container, with field references resolved as the
   * kubelet would (only the Pod's namespace is referenced by the charts).
   */
  public Map<String, String> environment(String operator) {
    return new LinkedHashMap<>(ChartAssertions.resolvedEnv(deployment(operator), NAMESPACE));
  }

  /** The name of the ServiceAccount the chart runs the operator as. */
  public String serviceAccount(String operator) {
    return deployment(operator).getSpec().getTemplate().getSpec().getServiceAccountName();
  }

  /** The ServiceAccount's token, as the token controller of 1.20 stores it in a Secret. */
  public String token(String operator) {
    String token = tokenOrNull(operator);
    if (token == null) {
      throw new IllegalStateException("no token yet for " + serviceAccount(operator));
    }
    return token;
  }

  private String tokenOrNull(String operator) {
    Deployment d = deploymentOrNull(operator);
    return d == null ? null : serviceAccountToken(serviceAccount(operator));
  }

  /** The token of a ServiceAccount of the release namespace, or null while it has none. */
  String serviceAccountToken(String serviceAccount) {
    return ServiceAccountTokens.tokenOrNull(admin, NAMESPACE, serviceAccount);
  }

  /** A client authenticated as the operator's ServiceAccount: RBAC as the chart grants it. */
  public KubernetesClient clientAs(String operator, Consumer<HttpClient.Builder> customizer) {
    return cluster.clientWithToken(token(operator), customizer);
  }

  /** The cluster the release is installed on. */
  public E2eCluster cluster() {
    return cluster;
  }
}
