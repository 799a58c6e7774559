package dev.bosun.platform;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.common.testing.LocalControlPlane;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Where the e2e suite runs. By default the local control plane, with the operators running in the
 * test JVM under their charts' ServiceAccount tokens. With {@code -Pkind} (property {@code
 * bosun.e2e.kubeconfig}) a kind cluster where the charts' Deployments run the operators from their
 * real images; that needs a Docker engine, which the development machines do not have.
 */
public sealed interface E2eCluster {

  /** The kubeconfig of a cluster-admin. */
  Path kubeconfig();

  /** A cluster-admin client; the caller closes it. */
  KubernetesClient adminClient();

  /** A client authenticated with a bearer token, its requests passing {@code customizer}. */
  KubernetesClient clientWithToken(String token, Consumer<HttpClient.Builder> customizer);

  /** True when the operators run as the charts' Pods, false when the suite runs them itself. */
  boolean operatorsInCluster();

  /** The cluster of this run. */
  static E2eCluster current() {
    String kubeconfig = System.getProperty("bosun.e2e.kubeconfig", "");
    return kubeconfig.isBlank()
        ? new Local(ControlPlaneExtension.controlPlane())
        : new Kind(Path.of(kubeconfig));
  }

  /** The local control plane of this JVM (kubelet simulated). */
  record Local(LocalControlPlane plane) implements E2eCluster {
    @Override
    public Path kubeconfig() {
      return plane.kubeconfig();
    }

    @Override
    public KubernetesClient adminClient() {
      return plane.adminClient();
    }

    @Override
    public KubernetesClient clientWithToken(String token, Consumer<HttpClient.Builder> customizer) {
      return plane.clientWithToken(token, customizer);
    }

    @Override
    public boolean operatorsInCluster() {
      return false;
    }
  }

  /** A kind cluster (hack/kind-e2e.sh creates it and loads the images). */
  record Kind(Path kubeconfig) implements E2eCluster {
    @Override
    public KubernetesClient adminClient() {
      return new KubernetesClientBuilder().withConfig(config()).build();
    }

    @Override
    public KubernetesClient clientWithToken(String token, Consumer<HttpClient.Builder> customizer) {
      Config config = config();
      // Only the token authenticates: drop the admin's client certificate.
      config.setClientCertData(null);
      config.setClientKeyData(null);
      config.setClientCertFile(null);
      config.setClientKeyFile(null);
      config.setOauthToken(token);
      config.setAutoOAuthToken(token);
      return new KubernetesClientBuilder()
          .withConfig(config)
          .withHttpClientBuilderConsumer(customizer)
          .build();
    }

    @Override
    public boolean operatorsInCluster() {
      return true;
    }

    private Config config() {
      try {
        return Config.fromKubeconfig(Files.readString(kubeconfig));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read the kind kubeconfig " + kubeconfig, e);
      }
    }
  }
}
