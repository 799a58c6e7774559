package dev.bosun.mysql.reconciler;

import dev.bosun.common.dependent.ChildCache;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads a cluster's Secrets without paying a request per round. The Secrets the operator generated
 * carry its labels and come from the informer. A Secret it did not make (a root Secret the user
 * named, passwords restored with old data) is in no label-scoped informer: it is read from the
 * server once per generation of the spec and kept while the cluster's Secrets are in order; any
 * problem, or a change of the spec, reads it again.
 */
final class SecretLookups {

  private record Verified(Long generation, Map<String, Secret> secrets) {}

  private final Map<String, Verified> verified = new ConcurrentHashMap<>();

  /** Finds (or creates) the Secrets of {@code c} for one reconcile. */
  ClusterSecrets.Found ensure(
      KubernetesClient client, ChildCache<MySQLCluster> cache, MySQLCluster c) {
    String uid = c.getMetadata().getUid();
    Long generation = c.getMetadata().getGeneration();
    Verified earlier = verified.get(uid);
    Map<String, Secret> kept =
        earlier != null && Objects.equals(earlier.generation(), generation)
            ? earlier.secrets()
            : Map.of();
    Map<String, Secret> read = new HashMap<>();
    ClusterSecrets.Lookup server = ClusterSecrets.fromServer(client, c);
    ClusterSecrets.Lookup lookup =
        new ClusterSecrets.Lookup() {
          @Override
          public Secret find(String name) {
            var cached = cache.named(Secret.class, name);
            if (cached.isPresent()) {
              return cached.get();
            }
            Secret s = kept.containsKey(name) ? kept.get(name) : server.find(name);
            if (s != null) {
              read.put(name, s);
            }
            return s;
          }

          @Override
          public void created(Secret secret) {
            cache.written(secret, null);
          }
        };
    ClusterSecrets.Found found = ClusterSecrets.ensure(client, lookup, c);
    if (found.ok()) {
      verified.put(uid, new Verified(generation, Map.copyOf(read)));
    } else {
      verified.remove(uid);
    }
    return found;
  }

  /** Forgets what was verified for a deleted cluster. */
  void forget(String uid) {
    verified.remove(uid);
  }
}
