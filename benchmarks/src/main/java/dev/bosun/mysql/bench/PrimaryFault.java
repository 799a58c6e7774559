package dev.bosun.mysql.bench;

import dev.bosun.common.testing.LocalNode;
import io.fabric8.kubernetes.client.KubernetesClient;

/** What can happen to a MySQLCluster's primary on the real node, and how it is undone. */
enum PrimaryFault {
  /** The server SIGKILLed, as an OOM kill: the kubelet restarts the container in place. */
  KILLED("server killed (SIGKILL)"),
  /** The server SIGSTOPped: its port still accepts connections and nothing answers. */
  FROZEN("server frozen (SIGSTOP)"),
  /** The Pod force-deleted (grace period 0): the StatefulSet makes it again on its volume. */
  DELETED("Pod force-deleted");

  private final String label;

  PrimaryFault(String label) {
    this.label = label;
  }

  String label() {
    return label;
  }

  /** Strikes {@code pod} of {@code namespace}, whose MariaDB container is {@code container}. */
  void inject(
      KubernetesClient admin, LocalNode node, String namespace, String pod, String container) {
    switch (this) {
      case KILLED -> node.signalContainer(container, "SIGKILL");
      case FROZEN -> node.signalContainer(container, "SIGSTOP");
      case DELETED -> admin.pods().inNamespace(namespace).withName(pod).withGracePeriod(0).delete();
    }
  }

  /** Lets a frozen server go on after the failover so the member can come back. */
  void undo(LocalNode node, String container) {
    if (this == FROZEN) {
      try {
        node.signalContainer(container, "SIGCONT");
      } catch (IllegalStateException gone) {
        // The container was replaced meanwhile (killed or its Pod deleted): nothing is stopped.
        System.err.println("[bench] SIGCONT not delivered: " + gone.getMessage());
      }
    }
  }
}
