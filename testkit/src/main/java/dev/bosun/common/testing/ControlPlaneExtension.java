package dev.bosun.common.testing;

import java.time.Duration;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Starts this JVM's {@link LocalControlPlane} and {@link KubeletSimulator} before a test class, and
 * prints the control plane's logs when a test fails. Register it before JOSDK's operator extension.
 */
public class ControlPlaneExtension implements BeforeAllCallback, TestWatcher {

  private static KubeletSimulator kubelet;

  /** The shared control plane (started on first use). */
  public static LocalControlPlane controlPlane() {
    return LocalControlPlane.shared();
  }

  /** The shared kubelet simulator, readiness after 300 ms (started on first use). */
  public static synchronized KubeletSimulator kubelet() {
    if (kubelet == null) {
      kubelet = new KubeletSimulator(controlPlane().adminClient(), Duration.ofMillis(300)).start();
    }
    return kubelet;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    kubelet();
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    System.err.println(
        "===== " + context.getDisplayName() + " failed: control plane logs follow =====");
    controlPlane().printLogTails(60, System.err::println);
  }
}
