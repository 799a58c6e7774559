package dev.bosun.common.testing;

import dev.bosun.common.runtime.OperatorRuntime;
import dev.bosun.common.runtime.OperatorSettings;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An operator as its Main builds it, run in-process on the shared control plane for ITs; as a
 * static {@code @RegisterExtension} it runs for the whole test class.
 */
public final class RunningOperator implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

  /** How a module's Main builds its operator from the test's settings and this fixture. */
  @FunctionalInterface
  public interface Launch {
    OperatorRuntime create(OperatorSettings settings, RunningOperator operator);
  }

  /** Every write the operator's client sends, to assert that an idle operator stays quiet. */
  public final WriteCounter writes = new WriteCounter();

  /** Reconciles JOSDK reports, for a Launch that hands it to Main as the operator's metrics. */
  public final ReconcileCounter reconciles = new ReconcileCounter();

  /** Cuts the operator off the API server at a chosen request, as if it died there. */
  public final ApiCut cut = new ApiCut();

  /** The operator's admin client; tests may share it. */
  public final KubernetesClient client =
      ControlPlaneExtension.controlPlane()
          .adminClient(
              b -> b.addOrReplaceInterceptor("writes", writes).addOrReplaceInterceptor("cut", cut));

  /** The test's own admin client, so that its writes are not counted in {@link #writes}. */
  public final KubernetesClient testClient = ControlPlaneExtension.controlPlane().adminClient();

  private final String name;
  private final Launch launch;
  private boolean servesHttp;
  private URI operatorUrl;
  private OperatorRuntime runtime;

  /** The operator {@code name} that {@code launch} builds, with its CRDs installed now. */
  public RunningOperator(String name, Launch launch, String... crds) {
    this.name = name;
    this.launch = launch;
    Crds.install(client, crds);
  }

  /**
   * Serves the operator's HTTP endpoint on a free loopback port chosen at each start (pods the
   * process kubelet runs here reach it at {@link #operatorUrl()}); without it HTTP is disabled.
   */
  public RunningOperator servingHttp() {
    servesHttp = true;
    return this;
  }

  public RunningOperator start() {
    int port = -1;
    if (servesHttp) {
      // The endpoint binds every address, so its port must be free on all of them: a port free
      // on 127.0.0.1 alone can be a test etcd member's or server's at 127.0.x.y.
      port = LocalProcess.freePortOnEveryAddress();
      operatorUrl = URI.create("http://127.0.0.1:" + port);
    }
    runtime = launch.create(OperatorSettings.local(name).withHttpPort(port), this).start();
    return this;
  }

  /** Stops the operator and keeps the client, so that a test can start it again. */
  public void stop() {
    runtime.close();
    runtime = null;
  }

  /** The operator's HTTP endpoint (health, metrics, module routes); null unless serving HTTP. */
  public URI operatorUrl() {
    return operatorUrl;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }

  @Override
  public void close() {
    if (runtime != null) {
      stop();
    }
    client.close();
    testClient.close();
  }

  /** A new temporary directory, for an operator volume a module's ITs inspect. */
  public static Path tempDir(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
