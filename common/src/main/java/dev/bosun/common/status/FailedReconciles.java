package dev.bosun.common.status;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a reconcile that threw leaves for the user: Ready=False with reason {@value #REASON} and one
 * sentence naming the cause (never the exception's text), written through {@link
 * CachedStatusWrites}; the log keeps the stack, and JOSDK's bounded retry with back-off goes on. A
 * reconcile that failed because its resource was deleted meanwhile is not a failure: nothing is
 * written or retried (a resource created again under the name brings its own event).
 */
public final class FailedReconciles {

  /** Ready's reason while a reconcile fails and is retried. */
  public static final String REASON = "ReconcileError";

  private static final Logger LOG = LoggerFactory.getLogger(FailedReconciles.class);

  private FailedReconciles() {}

  /**
   * Records the failure of {@code primary}'s reconcile; {@code blocked} builds the status from the
   * message (keeping what the stored status holds).
   */
  public static <S, P extends CustomResource<?, S>> ErrorStatusUpdateControl<P> record(
      P primary, Context<P> context, Exception e, Function<String, S> blocked) {
    if (primaryGone(primary, e)) {
      LOG.info(
          "{}/{}: deleted while it was being reconciled; nothing to retry",
          primary.getMetadata().getNamespace(),
          primary.getMetadata().getName());
      return ErrorStatusUpdateControl.<P>noStatusUpdate().withNoRetry();
    }
    String message = "reconcile failed, retrying: " + HumanMessages.describe(e);
    LOG.warn(
        "{}/{}: {}",
        primary.getMetadata().getNamespace(),
        primary.getMetadata().getName(),
        message,
        e);
    try {
      CachedStatusWrites.applyIfChanged(primary, blocked.apply(message), context);
    } catch (KubernetesClientException unwritable) {
      LOG.debug("could not record the failed reconcile", unwritable);
    }
    return ErrorStatusUpdateControl.defaultErrorProcessing();
  }

  /** True when {@code e} (or a cause) is the API server saying {@code primary} itself is gone. */
  public static boolean primaryGone(HasMetadata primary, Throwable e) {
    String plural = HasMetadata.getPlural(primary.getClass());
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof KubernetesClientException k
          && k.getCode() == 404
          && k.getStatus() != null
          && k.getStatus().getDetails() != null
          && plural.equals(k.getStatus().getDetails().getKind())
          && primary.getMetadata().getName().equals(k.getStatus().getDetails().getName())) {
        return true;
      }
    }
    return false;
  }
}
