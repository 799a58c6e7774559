package dev.bosun.web.dependent;

import static dev.bosun.web.WebServiceOperator.APP;
import static dev.bosun.web.WebServiceOperator.COMPONENT;

import dev.bosun.common.dependent.DisruptionBudget;
import dev.bosun.common.meta.Labels;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.v1alpha1.WebService;
import java.util.Optional;

/**
 * The PodDisruptionBudget a WebService asks for: on by default when more than one replica is
 * desired (up to {@code autoscaling.maxReplicas} with an autoscaler) (a drain then keeps the others
 * serving), off when {@code disruptionBudget.enabled} is false; it lets at most {@code
 * maxUnavailable} Pods go at a time.
 */
public final class DisruptionBudgets {

  private DisruptionBudgets() {}

  /** The budget to keep, or empty when the WebService should have none. */
  public static Optional<DisruptionBudget> desired(WebService ws) {
    var spec = ws.getSpec().getDisruptionBudget();
    Boolean enabled = spec == null ? null : spec.getEnabled();
    boolean on = enabled != null ? enabled : desiredReplicas(ws) > 1;
    if (!on) {
      return Optional.empty();
    }
    int maxUnavailable =
        spec == null || spec.getMaxUnavailable() == null ? 1 : spec.getMaxUnavailable();
    return Optional.of(
        new DisruptionBudget(
            ws.getMetadata().getName(),
            Labels.of(ws, APP, COMPONENT, WebServiceOperator.NAME),
            Labels.selector(ws, APP, COMPONENT),
            null,
            maxUnavailable));
  }

  /** The most replicas the user asks for: the autoscaler's maximum while one owns the count. */
  static int desiredReplicas(WebService ws) {
    var autoscaling = ws.getSpec().getAutoscaling();
    if (autoscaling != null) {
      return autoscaling.getMaxReplicas();
    }
    return ws.getSpec().getReplicas();
  }
}
