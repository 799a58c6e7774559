package dev.bosun.common.testing;

import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointSubset;
import io.fabric8.kubernetes.api.model.Endpoints;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.Lookup;
import org.xbill.DNS.Record;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * Cluster DNS for {@code cluster.local}, served as CoreDNS would be: a Pod behind the {@code
 * kube-dns} Service at {@link LocalNode#CLUSTER_DNS}. CoreDNS is not packaged for Debian; the Pod
 * runs Debian's dnsmasq, which reloads a hosts directory by itself (inotify), and this class feeds
 * that directory from the API through informers: {@code <svc>.<ns>.svc.cluster.local} for every
 * Service, and for headless Services every endpoint and {@code
 * <hostname>.<svc>.<ns>.svc.cluster.local} for endpoints that carry a hostname (StatefulSet Pods).
 * Names outside {@code cluster.local} get no answer: nothing leaves the machine.
 */
public final class ClusterDns implements AutoCloseable {

  public static final String NAMESPACE = "kube-system";
  public static final String NAME = "bosun-dns";
  private static final String DOMAIN = "cluster.local";

  private final KubernetesClient client;
  private final Path hostsDir;
  private final String image;
  private final ScheduledExecutorService writer =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "cluster-dns-feeder"));
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private SharedIndexInformer<Service> services;
  private SharedIndexInformer<Endpoints> endpoints;

  public ClusterDns(KubernetesClient client, Path hostsDir, String image) {
    this.client = client;
    this.hostsDir = hostsDir;
    this.image = image;
  }

  /** Starts feeding, runs the DNS Pod and its Service, and waits until it answers. */
  public ClusterDns start() {
    try {
      Files.createDirectories(hostsDir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    services = client.services().inAnyNamespace().inform(onAnyChange());
    endpoints = client.endpoints().inAnyNamespace().inform(onAnyChange());
    client.services().inNamespace(NAMESPACE).resource(service()).createOr(s -> s.update());
    client.pods().inNamespace(NAMESPACE).resource(pod()).createOr(p -> p.update());
    Awaitility.await("cluster DNS to answer for kubernetes.default.svc." + DOMAIN)
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(() -> !resolve("kubernetes.default.svc." + DOMAIN).isEmpty());
    return this;
  }

  /**
   * Resolves a cluster name through the cluster DNS Service (as a Pod would), from this JVM; empty
   * when the name is unknown.
   */
  public static List<InetAddress> resolve(String name) throws IOException {
    SimpleResolver resolver = new SimpleResolver(LocalNode.CLUSTER_DNS);
    resolver.setTimeout(Duration.ofSeconds(2));
    Lookup lookup = new Lookup(name.endsWith(".") ? name : name + ".", Type.A);
    lookup.setResolver(resolver);
    lookup.setCache(null);
    Record[] records = lookup.run();
    if (records == null) {
      return List.of();
    }
    return java.util.Arrays.stream(records).map(r -> ((ARecord) r).getAddress()).toList();
  }

  private <T> ResourceEventHandler<T> onAnyChange() {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        schedule();
      }

      @Override
      public void onUpdate(T old, T obj) {
        schedule();
      }

      @Override
      public void onDelete(T obj, boolean unknown) {
        schedule();
      }
    };
  }

  /** Bursts of changes (a namespace of Services appearing) end in one rewrite 100 ms later. */
  private void schedule() {
    if (scheduled.compareAndSet(false, true)) {
      writer.schedule(this::write, 100, TimeUnit.MILLISECONDS);
    }
  }

  private void write() {
    scheduled.set(false);
    try {
      Path tmp = hostsDir.resolve(".hosts.tmp");
      Files.writeString(tmp, String.join("\n", records()) + "\n");
      // A rename is one inotify event for dnsmasq: it never reads a half-written file.
      Files.move(tmp, hostsDir.resolve("cluster"), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The hosts-file lines for every Service and headless endpoint the informers hold. */
  TreeSet<String> records() {
    TreeSet<String> lines = new TreeSet<>();
    for (Service s : services.getStore().list()) {
      String fqdn =
          s.getMetadata().getName() + "." + s.getMetadata().getNamespace() + ".svc." + DOMAIN;
      String ip = s.getSpec().getClusterIP();
      if (ip != null && !ip.isEmpty() && !"None".equals(ip)) {
        lines.add(ip + " " + fqdn);
      }
    }
    for (Endpoints e : endpoints.getStore().list()) {
      Service s =
          services
              .getStore()
              .getByKey(e.getMetadata().getNamespace() + "/" + e.getMetadata().getName());
      if (s == null || !"None".equals(s.getSpec().getClusterIP())) {
        continue;
      }
      String fqdn =
          e.getMetadata().getName() + "." + e.getMetadata().getNamespace() + ".svc." + DOMAIN;
      for (EndpointSubset subset : e.getSubsets()) {
        for (EndpointAddress a : subset.getAddresses()) {
          lines.add(a.getIp() + " " + fqdn);
          if (a.getHostname() != null) {
            lines.add(a.getIp() + " " + a.getHostname() + "." + fqdn);
          }
        }
      }
    }
    return lines;
  }

  private Service service() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName("kube-dns")
        .withNamespace(NAMESPACE)
        .withLabels(Map.of("k8s-app", "kube-dns"))
        .endMetadata()
        .withNewSpec()
        .withClusterIP(LocalNode.CLUSTER_DNS)
        .withSelector(Map.of("k8s-app", "kube-dns"))
        .addNewPort()
        .withName("dns")
        .withProtocol("UDP")
        .withPort(53)
        .withTargetPort(new IntOrString(53))
        .endPort()
        .addNewPort()
        .withName("dns-tcp")
        .withProtocol("TCP")
        .withPort(53)
        .withTargetPort(new IntOrString(53))
        .endPort()
        .endSpec()
        .build();
  }

  private Pod pod() {
    return new PodBuilder()
        .withNewMetadata()
        .withName(NAME)
        .withNamespace(NAMESPACE)
        .withLabels(Map.of("k8s-app", "kube-dns"))
        .endMetadata()
        .withNewSpec()
        .withDnsPolicy("Default")
        .addNewContainer()
        .withName("dnsmasq")
        .withImage(image)
        .withImagePullPolicy("Never")
        .withCommand(
            "dnsmasq",
            "--keep-in-foreground",
            "--log-facility=-",
            "--user=root",
            "--no-resolv",
            "--no-hosts",
            "--hostsdir=/etc/cluster-hosts",
            "--local=/" + DOMAIN + "/",
            "--domain-needed",
            "--bogus-priv",
            "--local-ttl=1")
        .addNewPort()
        .withContainerPort(53)
        .withProtocol("UDP")
        .withName("dns")
        .endPort()
        .addNewPort()
        .withContainerPort(53)
        .withProtocol("TCP")
        .withName("dns-tcp")
        .endPort()
        .withNewReadinessProbe()
        .withNewTcpSocket()
        .withPort(new IntOrString(53))
        .endTcpSocket()
        .withPeriodSeconds(2)
        .endReadinessProbe()
        .addNewVolumeMount()
        .withName("hosts")
        .withMountPath("/etc/cluster-hosts")
        .withReadOnly(true)
        .endVolumeMount()
        .endContainer()
        .addNewVolume()
        .withName("hosts")
        .withNewHostPath()
        .withPath(hostsDir.toString())
        .withType("Directory")
        .endHostPath()
        .endVolume()
        .endSpec()
        .build();
  }

  @Override
  public void close() {
    if (services != null) {
      services.close();
    }
    if (endpoints != null) {
      endpoints.close();
    }
    writer.shutdownNow();
  }
}
