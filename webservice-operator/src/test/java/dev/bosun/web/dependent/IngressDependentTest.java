package dev.bosun.web.dependent;

import static dev.bosun.web.dependent.DeploymentDependentTest.webService;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import org.junit.jupiter.api.Test;

class IngressDependentTest {

  @Test
  void hostPathsTlsAndClassRouteToTheServicePorts() {
    Ingress ingress =
        IngressDependent.desiredIngress(
            webService(
                """
                image: registry.example.com/a:1
                ports: [{name: web, port: 80}, {name: api, port: 9000}]
                ingress:
                  host: shop.example.com
                  className: nginx
                  tlsSecretName: shop-tls
                  annotations: {nginx.ingress.kubernetes.io/proxy-body-size: 8m}
                  paths:
                    - {path: /}
                    - {path: /api, pathType: Exact, port: api}
                """,
                1));
    assertThat(ingress.getMetadata().getName()).isEqualTo("shop");
    assertThat(ingress.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/managed-by", "bosun-webservice-operator");
    assertThat(ingress.getMetadata().getAnnotations())
        .containsEntry("nginx.ingress.kubernetes.io/proxy-body-size", "8m");
    var spec = ingress.getSpec();
    assertThat(spec.getIngressClassName()).isEqualTo("nginx");
    assertThat(spec.getTls())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.getHosts()).containsExactly("shop.example.com");
              assertThat(t.getSecretName()).isEqualTo("shop-tls");
            });
    var rule = spec.getRules().get(0);
    assertThat(rule.getHost()).isEqualTo("shop.example.com");
    var paths = rule.getHttp().getPaths();
    assertThat(paths).extracting(p -> p.getPath()).containsExactly("/", "/api");
    assertThat(paths).extracting(p -> p.getPathType()).containsExactly("Prefix", "Exact");
    assertThat(paths)
        .extracting(p -> p.getBackend().getService().getPort().getName())
        .containsExactly("web", "api");
    assertThat(paths)
        .allSatisfy(p -> assertThat(p.getBackend().getService().getName()).isEqualTo("shop"));
  }

  @Test
  void aHostAloneRoutesEverythingOverPlainHttp() {
    Ingress ingress =
        IngressDependent.desiredIngress(
            webService(
                "image: registry.example.com/a:1\nports: [{port: 80}]\ningress: {host: shop.example.com}\n",
                1));
    assertThat(ingress.getSpec().getTls()).isNullOrEmpty();
    assertThat(ingress.getSpec().getIngressClassName()).isNull();
    var path = ingress.getSpec().getRules().get(0).getHttp().getPaths().get(0);
    assertThat(path.getPath()).isEqualTo("/");
    assertThat(path.getPathType()).isEqualTo("Prefix");
    assertThat(path.getBackend().getService().getPort().getName()).isEqualTo("http");
  }

  @Test
  void withoutIngressOnlyTheIdentityIsGiven() {
    Ingress ingress =
        IngressDependent.desiredIngress(
            webService("image: registry.example.com/a:1\nports: [{port: 80}]\n", 1));
    assertThat(ingress.getMetadata().getName()).isEqualTo("shop");
    assertThat(ingress.getSpec()).isNull();
  }
}
