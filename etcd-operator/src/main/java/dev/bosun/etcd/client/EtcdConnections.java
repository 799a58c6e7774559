package dev.bosun.etcd.client;

import dev.bosun.etcd.v1alpha1.EtcdCluster;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ClientInterceptor;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLException;

/**
 * The jetcd clients of every cluster, shared by the reconcilers: plain text, or with the client
 * certificate of {@code tls.operatorSecretName} (keys tls.crt, tls.key, ca.crt). A rotated Secret
 * (new resourceVersion) gets new clients; the old ones are closed. The Secret is the user's (no
 * informer of the operator's labels sees it), so it is read again only every {@link #RECHECK}, or
 * at once when the cluster names another one: a converged TLS cluster costs one read per recheck.
 */
public final class EtcdConnections implements AutoCloseable {

  /** How long unused clients are kept. */
  public static final Duration IDLE = Duration.ofMinutes(10);

  /** How long a read of the operator's client-certificate Secret is trusted. */
  public static final Duration RECHECK = Duration.ofMinutes(5);

  private static final class Entry {
    final String version;
    final String secretName;
    final EtcdClients clients;
    volatile long lastUsed = System.nanoTime();
    volatile long checkedAt = System.nanoTime();

    Entry(String version, String secretName, EtcdClients clients) {
      this.version = version;
      this.secretName = secretName;
      this.clients = clients;
    }

    String version() {
      return version;
    }

    EtcdClients clients() {
      return clients;
    }
  }

  private final Map<String, Entry> byCluster = new ConcurrentHashMap<>();
  private final UnaryOperator<URI> route;
  private final List<ClientInterceptor> interceptors;

  /** Connections straight to the members. */
  public EtcdConnections() {
    this(UnaryOperator.identity());
  }

  /** Connections that reach each member where {@code route} says (see {@link EtcdClients}). */
  public EtcdConnections(UnaryOperator<URI> route) {
    this(route, List.of());
  }

  /**
   * The same, every call of every client and member channel passing {@code interceptors} too (a
   * chaos lab's cut, which stops the operator at a chosen etcd call as a crash would).
   */
  public EtcdConnections(UnaryOperator<URI> route, List<ClientInterceptor> interceptors) {
    this.route = route;
    this.interceptors = List.copyOf(interceptors);
  }

  /**
   * The clients for the cluster; an {@link IllegalArgumentException} when its Secret is unusable.
   */
  public EtcdClients of(KubernetesClient client, EtcdCluster cluster) {
    String uid = cluster.getMetadata().getUid();
    var tls = cluster.getSpec().getTls();
    String secretName = tls == null ? null : tls.getOperatorSecretName();
    Entry known = byCluster.get(uid);
    if (known != null
        && Objects.equals(known.secretName, secretName)
        && (secretName == null || System.nanoTime() - known.checkedAt < RECHECK.toNanos())) {
      known.lastUsed = System.nanoTime();
      return known.clients();
    }
    Secret secret = null;
    String version = "plain";
    if (secretName != null) {
      secret =
          client
              .secrets()
              .inNamespace(cluster.getMetadata().getNamespace())
              .withName(tls.getOperatorSecretName())
              .get();
      if (secret == null || secret.getData() == null) {
        throw new IllegalArgumentException(
            "Secret "
                + tls.getOperatorSecretName()
                + " with the operator's client certificate does not exist");
      }
      version = secret.getMetadata().getResourceVersion();
    }
    closeIdle(uid);
    Entry current = byCluster.get(uid);
    if (current != null && current.version().equals(version)) {
      current.lastUsed = System.nanoTime();
      current.checkedAt = System.nanoTime();
      return current.clients();
    }
    EtcdClients clients = new EtcdClients(withInterceptors(customizer(secret)), route);
    Entry previous = byCluster.put(uid, new Entry(version, secretName, clients));
    if (previous != null) {
      previous.clients().close();
    }
    return clients;
  }

  /** {@code customizer}, then this connection's interceptors after those already set. */
  private UnaryOperator<io.etcd.jetcd.ClientBuilder> withInterceptors(
      UnaryOperator<io.etcd.jetcd.ClientBuilder> customizer) {
    if (interceptors.isEmpty()) {
      return customizer;
    }
    return builder -> {
      io.etcd.jetcd.ClientBuilder b = customizer.apply(builder);
      List<ClientInterceptor> all =
          new ArrayList<>(b.interceptors() == null ? List.of() : b.interceptors());
      all.addAll(interceptors);
      return b.interceptors(all);
    };
  }

  private static UnaryOperator<io.etcd.jetcd.ClientBuilder> customizer(Secret secret) {
    if (secret == null) {
      return UnaryOperator.identity();
    }
    byte[] cert = bytes(secret, "tls.crt");
    byte[] key = bytes(secret, "tls.key");
    byte[] ca = bytes(secret, "ca.crt");
    return builder -> {
      try {
        return builder.sslContext(
            ssl ->
                ssl.trustManager(new ByteArrayInputStream(ca))
                    .keyManager(new ByteArrayInputStream(cert), new ByteArrayInputStream(key)));
      } catch (SSLException e) {
        throw new IllegalArgumentException(
            "Secret "
                + secret.getMetadata().getName()
                + " holds no usable certificate: "
                + e.getMessage(),
            e);
      }
    };
  }

  private static byte[] bytes(Secret secret, String key) {
    String value = secret.getData().get(key);
    if (value == null) {
      throw new IllegalArgumentException(
          "Secret " + secret.getMetadata().getName() + " has no key " + key);
    }
    return Base64.getDecoder().decode(value);
  }

  private void closeIdle(String except) {
    long now = System.nanoTime();
    byCluster
        .entrySet()
        .removeIf(
            e -> {
              if (e.getKey().equals(except) || now - e.getValue().lastUsed < IDLE.toNanos()) {
                return false;
              }
              e.getValue().clients().close();
              return true;
            });
  }

  /** Closes and forgets the clients of a cluster that was deleted. */
  public void forget(String clusterUid) {
    Entry gone = byCluster.remove(clusterUid);
    if (gone != null) {
      gone.clients().close();
    }
  }

  /** How many clusters have clients open. */
  int clusters() {
    return byCluster.size();
  }

  @Override
  public void close() {
    byCluster.values().forEach(e -> e.clients().close());
    byCluster.clear();
  }
}
