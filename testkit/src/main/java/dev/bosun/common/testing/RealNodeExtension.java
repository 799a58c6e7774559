package dev.bosun.common.testing;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Starts this JVM's {@link RealNodeCluster} before a test class and prints the control plane's and
 * the node's logs when a test fails.
 */
public class RealNodeExtension implements BeforeAllCallback, TestWatcher {

  @Override
  public void beforeAll(ExtensionContext context) {
    RealNodeCluster.shared();
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    System.err.println(
        "===== " + context.getDisplayName() + " failed: real node logs follow =====");
    RealNodeCluster.shared().printLogTails(60, System.err::println);
  }
}
