package dev.bosun.common.status;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Objects;
import java.util.Optional;

/**
 * The primary resource as the API server has it now, for reconcilers that keep state in their
 * status. JOSDK hands a reconcile its informer's copy, and a reconcile that an event queued during
 * the previous one can start before the informer has seen that reconcile's own status write (JOSDK
 * 5.2.3 does not cache status patches). Deciding on that copy is deciding on stale state, and since
 * status writes here are server-side applies of the whole status, writing it back would also erase
 * what the previous reconcile recorded (found when an etcd disaster recovery was forgotten half-way
 * under CI load). One GET per reconcile: a read, never a write.
 */
public final class FreshPrimary {

  private FreshPrimary() {}

  /**
   * The live object, or empty when it was deleted (or deleted and created again, another UID) since
   * JOSDK's event: its own events bring the new one.
   */
  @SuppressWarnings("unchecked")
  public static <P extends HasMetadata> Optional<P> read(KubernetesClient client, P cached) {
    P live =
        client
            .resources((Class<P>) cached.getClass())
            .inNamespace(cached.getMetadata().getNamespace())
            .withName(cached.getMetadata().getName())
            .get();
    if (live == null
        || !Objects.equals(live.getMetadata().getUid(), cached.getMetadata().getUid())) {
      return Optional.empty();
    }
    return Optional.of(live);
  }
}
