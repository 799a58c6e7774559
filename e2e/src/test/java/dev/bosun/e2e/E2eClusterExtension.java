package dev.bosun.e2e;

import dev.bosun.common.testing.ControlPlaneExtension;
import dev.bosun.platform.E2eCluster;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Starts the local control plane and kubelet simulator for the e2e tests, and shows its logs when a
 * test fails; on a kind cluster ({@code -Pkind}) there is nothing to start.
 */
class E2eClusterExtension implements BeforeAllCallback, TestWatcher {

  private final ControlPlaneExtension local = new ControlPlaneExtension();

  @Override
  public void beforeAll(ExtensionContext context) {
    if (E2eCluster.current() instanceof E2eCluster.Local) {
      local.beforeAll(context);
    }
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    if (E2eCluster.current() instanceof E2eCluster.Local) {
      local.testFailed(context, cause);
    }
  }
}
