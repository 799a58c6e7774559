package dev.bosun.etcd.objects;

import dev.bosun.common.meta.Labels;
import dev.bosun.common.meta.MetricsEndpoints;
import dev.bosun.etcd.EtcdOperator;
import dev.bosun.etcd.plan.MemberAddressing;
import dev.bosun.etcd.plan.ServiceAddressing;
import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The two Services of a cluster: a headless one that gives every member Pod its DNS name (also
 * before it is ready, or a joining member could never be reached by its peers), and the client
 * Service, which selects voting members only (learners refuse client requests).
 */
public final class ClusterServices {

  private ClusterServices() {}

  /** The headless Service; it also carries the members' metrics port when that is enabled. */
  public static Service peer(EtcdCluster cluster) {
    List<ServicePort> ports = new ArrayList<>();
    ports.add(port("client", MemberAddressing.CLIENT_PORT));
    ports.add(port("peer", MemberAddressing.PEER_PORT));
    MemberMetrics.port(cluster.getSpec())
        .ifPresent(p -> ports.add(MetricsEndpoints.servicePort(p)));
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(ServiceAddressing.peerService(cluster.getMetadata().getName()))
        .withNamespace(cluster.getMetadata().getNamespace())
        .withLabels(labels(cluster, "peer"))
        .endMetadata()
        .withNewSpec()
        .withClusterIP("None")
        .withPublishNotReadyAddresses(true)
        .withSelector(MemberPods.selector(cluster))
        .withPorts(ports)
        .endSpec()
        .build();
  }

  public static Service client(EtcdCluster cluster) {
    Map<String, String> selector = new LinkedHashMap<>(MemberPods.selector(cluster));
    selector.put(EtcdOperator.VOTER_LABEL, "true");
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(ServiceAddressing.clientService(cluster.getMetadata().getName()))
        .withNamespace(cluster.getMetadata().getNamespace())
        .withLabels(labels(cluster, "client"))
        .endMetadata()
        .withNewSpec()
        .withType("ClusterIP")
        .withSelector(selector)
        .withPorts(port("client", MemberAddressing.CLIENT_PORT))
        .endSpec()
        .build();
  }

  private static Map<String, String> labels(EtcdCluster cluster, String component) {
    return Labels.of(cluster, EtcdOperator.APP, component, EtcdOperator.NAME);
  }

  private static ServicePort port(String name, int port) {
    return new ServicePortBuilder()
        .withName(name)
        .withPort(port)
        .withNewTargetPort(port)
        .withProtocol("TCP")
        .build();
  }
}
