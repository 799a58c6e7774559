package dev.bosun.web.dependent;

import static dev.bosun.web.dependent.DeploymentDependentTest.webService;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.Map;
import java.util.Optional;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class ServiceDependentTest {

  private static final String TWO_PORTS =
      """
      image: nginx
      ports:
        - {name: http, port: 80, containerPort: 8080}
        - {name: dns, port: 53, protocol: UDP}
      """;

  @Test
  void identityAndLabels() {
    Service s = ServiceDependent.desiredService(webService(TWO_PORTS, 1));

    assertThat(s.getMetadata().getName()).isEqualTo("shop");
    assertThat(s.getMetadata().getNamespace()).isEqualTo("prod");
    assertThat(s.getMetadata().getLabels())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "app.kubernetes.io/name", "webservice",
                "app.kubernetes.io/instance", "shop",
                "app.kubernetes.io/component", "server",
                "app.kubernetes.io/managed-by", "bosun-webservice-operator",
                "app.kubernetes.io/part-of", "bosun"));
  }

  @Test
  void selectsThePodsOfTheDeployment() {
    WebService ws = webService(TWO_PORTS, 1);
    Service s = ServiceDependent.desiredService(ws);
    Deployment d = DeploymentDependent.desiredDeployment(ws, Optional.empty());

    assertThat(s.getSpec().getSelector())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "app.kubernetes.io/name", "webservice",
                "app.kubernetes.io/instance", "shop",
                "app.kubernetes.io/component", "server"))
        .isEqualTo(d.getSpec().getSelector().getMatchLabels());
    assertThat(d.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(s.getSpec().getSelector());
  }

  @Test
  void portsTargetTheContainerPortByName() {
    Service s = ServiceDependent.desiredService(webService(TWO_PORTS, 1));

    assertThat(s.getSpec().getPorts())
        .extracting(
            ServicePort::getName,
            ServicePort::getPort,
            ServicePort::getTargetPort,
            ServicePort::getProtocol,
            ServicePort::getNodePort)
        .containsExactly(
            Tuple.tuple("http", 80, new IntOrString("http"), "TCP", null),
            Tuple.tuple("dns", 53, new IntOrString("dns"), "UDP", null));
  }

  @Test
  void defaultTypeIsClusterIp() {
    assertThat(ServiceDependent.desiredService(webService(TWO_PORTS, 1)).getSpec().getType())
        .isEqualTo("ClusterIP");
  }

  @Test
  void nodePortIsKept() {
    Service s =
        ServiceDependent.desiredService(
            webService(
                """
                image: nginx
                ports:
                  - {name: http, port: 80, nodePort: 30080}
                  - {name: admin, port: 9000}
                service: {type: NodePort}
                """,
                1));

    assertThat(s.getSpec().getType()).isEqualTo("NodePort");
    assertThat(s.getSpec().getPorts())
        .extracting(ServicePort::getNodePort)
        .containsExactly(30080, null);
  }

  @Test
  void loadBalancerWithAnnotations() {
    Service s =
        ServiceDependent.desiredService(
            webService(
                """
                image: nginx
                ports: [{name: https, port: 443}]
                service:
                  type: LoadBalancer
                  annotations:
                    lb.example.com/internal: "true"
                """,
                1));

    assertThat(s.getSpec().getType()).isEqualTo("LoadBalancer");
    assertThat(s.getMetadata().getAnnotations())
        .containsExactly(Map.entry("lb.example.com/internal", "true"));
  }

  @Test
  void annotationsAreNeverNullAndMutable() {
    Service s = ServiceDependent.desiredService(webService(TWO_PORTS, 1));

    assertThat(s.getMetadata().getAnnotations()).isNotNull().isEmpty();
    s.getMetadata().getAnnotations().put("added", "by josdk");
    assertThat(s.getMetadata().getAnnotations()).containsKey("added");
  }

  @Test
  void annotationsAreACopyOfTheSpec() {
    WebService ws =
        webService(
            """
            image: nginx
            ports: [{name: http, port: 80}]
            service:
              annotations: {a: b}
            """,
            1);

    Service s = ServiceDependent.desiredService(ws);
    s.getMetadata().getAnnotations().put("added", "by josdk");

    assertThat(ws.getSpec().getService().getAnnotations()).containsOnlyKeys("a");
  }

  @Test
  void explicitlyNullAnnotationsGiveAnEmptyMap() {
    WebService ws = webService(TWO_PORTS, 1);
    ws.getSpec().getService().setAnnotations(null);

    assertThat(ServiceDependent.desiredService(ws).getMetadata().getAnnotations())
        .isNotNull()
        .isEmpty();
  }
}
