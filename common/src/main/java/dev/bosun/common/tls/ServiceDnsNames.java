package dev.bosun.common.tls;

import java.util.List;

/** The names by which Pods reach a Service, which a certificate for it must all carry. */
public final class ServiceDnsNames {

  private ServiceDnsNames() {}

  /**
   * {@code <service>}, {@code <service>.<namespace>}, {@code <service>.<namespace>.svc} and {@code
   * <service>.<namespace>.svc.cluster.local}.
   */
  public static List<String> of(String service, String namespace) {
    String svc = service + "." + namespace + ".svc";
    return List.of(service, service + "." + namespace, svc, svc + ".cluster.local");
  }
}
