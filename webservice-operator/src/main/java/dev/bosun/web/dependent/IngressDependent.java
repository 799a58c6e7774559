package dev.bosun.web.dependent;

import dev.bosun.common.dependent.RememberingDependent;
import dev.bosun.common.dependent.RememberingMatcher;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.webservicespec.ingress.Paths;
import io.fabric8.kubernetes.api.model.networking.v1.HTTPIngressPath;
import io.fabric8.kubernetes.api.model.networking.v1.HTTPIngressPathBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.IngressTLSBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The networking.k8s.io/v1 Ingress routing {@code spec.ingress.host} to the Service, present only
 * while the spec sets {@code ingress}; see {@link IngressEnabled}.
 */
@KubernetesDependent(
    informer =
        @Informer(
            labelSelector = WebServiceOperator.MANAGED_SELECTOR,
            itemStore = OwnFieldsItemStore.class),
    matcher = RememberingMatcher.class)
public class IngressDependent extends RememberingDependent<Ingress, WebService> {

  public IngressDependent() {
    super(Ingress.class);
  }

  @Override
  protected Ingress desired(WebService primary, Context<WebService> context) {
    return desiredIngress(primary);
  }

  /**
   * The Ingress a WebService with {@code ingress} asks for. Without it only the identity is given:
   * JOSDK asks for the desired object to find the one it deletes.
   */
  public static Ingress desiredIngress(WebService ws) {
    var ingress = ws.getSpec().getIngress();
    if (ingress == null) {
      return new IngressBuilder().withMetadata(ChildMetadata.of(ws)).build();
    }
    String service = ws.getMetadata().getName();
    String firstPort = ws.getSpec().getPorts().get(0).getName();
    List<Paths> paths =
        ingress.getPaths() == null || ingress.getPaths().isEmpty()
            ? List.of(rootPath())
            : ingress.getPaths();
    List<HTTPIngressPath> rules =
        paths.stream()
            .map(
                p ->
                    new HTTPIngressPathBuilder()
                        .withPath(p.getPath())
                        .withPathType(p.getPathType().getValue())
                        .withNewBackend()
                        .withNewService()
                        .withName(service)
                        .withNewPort()
                        .withName(p.getPort() == null ? firstPort : p.getPort())
                        .endPort()
                        .endService()
                        .endBackend()
                        .build())
            .toList();
    IngressBuilder builder =
        new IngressBuilder()
            .withMetadata(
                ChildMetadata.builder(ws)
                    // Never null: JOSDK adds its own annotation to this map.
                    .withAnnotations(
                        ingress.getAnnotations() == null
                            ? new LinkedHashMap<>()
                            : new LinkedHashMap<>(ingress.getAnnotations()))
                    .build())
            .withNewSpec()
            .withIngressClassName(ingress.getClassName())
            .addNewRule()
            .withHost(ingress.getHost())
            .withNewHttp()
            .withPaths(rules)
            .endHttp()
            .endRule()
            .endSpec();
    if (ingress.getTlsSecretName() != null) {
      builder
          .editSpec()
          .withTls(
              new IngressTLSBuilder()
                  .withHosts(ingress.getHost())
                  .withSecretName(ingress.getTlsSecretName())
                  .build())
          .endSpec();
    }
    return builder.build();
  }

  private static Paths rootPath() {
    Paths root = new Paths();
    root.setPath("/");
    return root;
  }
}
