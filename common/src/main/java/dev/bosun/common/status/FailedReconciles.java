package dev.bosun.common.status;

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
 * CachedStatusWrites}; the log keeps the stack, and JOSDK's bounded retry with back-off goes on.
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
}
