package dev.bosun.web.dependent;

import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/** The Ingress exists only while the spec asks for it; otherwise the workflow deletes it. */
public class IngressEnabled implements Condition<Ingress, WebService> {

  @Override
  public boolean isMet(
      DependentResource<Ingress, WebService> dependentResource,
      WebService primary,
      Context<WebService> context) {
    return primary.getSpec().getIngress() != null;
  }
}
