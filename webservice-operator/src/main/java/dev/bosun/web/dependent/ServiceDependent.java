package dev.bosun.web.dependent;

import static dev.bosun.web.WebServiceOperator.APP;
import static dev.bosun.web.WebServiceOperator.COMPONENT;

import dev.bosun.common.dependent.RememberingDependent;
import dev.bosun.common.dependent.RememberingMatcher;
import dev.bosun.common.meta.Labels;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.model.WebServiceMapper;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.LinkedHashMap;

/** The WebService's Service, exposing every port by name. */
// A 1.20 server answers 500 to JOSDK's create-only-if-absent SSA guard on Services.
@KubernetesDependent(
    createResourceOnlyIfNotExistingWithSSA = false,
    informer =
        @Informer(
            labelSelector = WebServiceOperator.MANAGED_SELECTOR,
            itemStore = OwnFieldsItemStore.class),
    matcher = RememberingMatcher.class)
public class ServiceDependent extends RememberingDependent<Service, WebService> {

  public ServiceDependent() {
    super(Service.class);
  }

  @Override
  protected Service desired(WebService primary, Context<WebService> context) {
    return desiredService(primary);
  }

  /** The Service a WebService asks for. */
  public static Service desiredService(WebService ws) {
    var serviceSpec = ws.getSpec().getService();
    return new ServiceBuilder()
        .withMetadata(
            ChildMetadata.builder(ws)
                // Never null: JOSDK adds its own annotation to this map.
                .withAnnotations(
                    serviceSpec.getAnnotations() == null
                        ? new LinkedHashMap<>()
                        : new LinkedHashMap<>(serviceSpec.getAnnotations()))
                .build())
        .withNewSpec()
        .withType(serviceSpec.getType().getValue())
        .withSelector(Labels.selector(ws, APP, COMPONENT))
        .withPorts(WebServiceMapper.INSTANCE.servicePorts(ws.getSpec().getPorts()))
        .endSpec()
        .build();
  }
}
