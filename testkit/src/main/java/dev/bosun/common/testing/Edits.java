package dev.bosun.common.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.net.HttpURLConnection;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A test's edit of an object an operator writes too. {@code edit} sends the resourceVersion it
 * read, so an operator's status write in between makes it fail with 409 Conflict (it did, in a CI
 * run); the edit is then made again on a fresh copy, as {@code kubectl edit} asks a person to.
 */
public final class Edits {

  private static final int ATTEMPTS = 10;

  private Edits() {}

  /** Applies {@code change} to a fresh copy of the object until no write came in between. */
  public static <T extends HasMetadata> T edit(Resource<T> resource, UnaryOperator<T> change) {
    return retryingConflicts(() -> resource.edit(change));
  }

  /** The same for the status subresource (a simulated kubelet's node or Pod status). */
  public static <T extends HasMetadata> T editStatus(
      Resource<T> resource, UnaryOperator<T> change) {
    return retryingConflicts(() -> resource.editStatus(change));
  }

  private static <T> T retryingConflicts(Supplier<T> write) {
    for (int attempt = 1; ; attempt++) {
      try {
        return write.get();
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
