package dev.bosun.mysql.plan;

/**
 * Maps an instance (pod) name to where its server answers. Production uses the headless Service's
 * DNS names; tests map to 127.0.0.1 ports of real servers.
 */
public interface Addressing {

  /** The address of one instance of a cluster whose servers listen on {@code port}. */
  Address of(String namespace, String cluster, String instance, int port);

  /** Production addressing: {@code <pod>.<cluster>-headless.<ns>.svc:<port>}. */
  static Addressing headlessService() {
    return (ns, cluster, instance, port) ->
        new Address(instance + "." + cluster + "-headless." + ns + ".svc", port);
  }
}
