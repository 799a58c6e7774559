package dev.bosun.web.reconciler;

import dev.bosun.common.meta.KubernetesNames;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.v1alpha1.WebService;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether every object created for a WebService gets a name its kind accepts. The API server takes
 * any DNS subdomain of up to 253 characters as a WebService's name, but the children are stricter:
 * the Service's name must be a DNS-1035 label (at most 63 characters, no dots, a letter first), the
 * {@code app.kubernetes.io/instance} label value at most 63 characters, and the canary Deployment's
 * name carries a suffix. Checked before anything is created.
 */
public final class WebServiceNames {

  private WebServiceNames() {}

  /** The rules the WebService's name breaks, each naming the child and the rule; empty if none. */
  public static List<String> problems(WebService ws) {
    String name = ws.getMetadata().getName();
    List<String> problems = new ArrayList<>();
    KubernetesNames.dns1035Label("the Service name", name)
        .or(() -> KubernetesNames.labelValue("the app.kubernetes.io/instance label value", name))
        .or(
            () ->
                KubernetesNames.dns1123Subdomain(
                    "the canary Deployment name", name + WebServiceOperator.CANARY_SUFFIX))
        .ifPresent(
            p ->
                problems.add(
                    "metadata.name: the Service, Deployment and labels are named after the"
                        + " WebService, and "
                        + p
                        + "; choose another name for the WebService"));
    return problems;
  }
}
