package dev.bosun.web;

import dev.bosun.web.v1alpha1.WebService;
import dev.bosun.web.v1alpha1.WebServiceSpec;
import dev.bosun.web.v1alpha1.webservicespec.Ports;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;

/** Test fixtures: WebServices as a user would write them. */
public final class WebServices {

  private WebServices() {}

  /** A WebService with one http port (80 on the Service, 8080 in the container). */
  public static WebService webService(String name, String image, int replicas) {
    WebServiceSpec spec = new WebServiceSpec();
    spec.setImage(image);
    spec.setReplicas(replicas);
    spec.setPorts(List.of(port("http", 80, 8080)));
    WebService ws = new WebService();
    ws.setMetadata(new ObjectMetaBuilder().withName(name).build());
    ws.setSpec(spec);
    return ws;
  }

  /** A WebService from the spec as a user would write it in YAML. */
  public static WebService fromYaml(String name, String specYaml) {
    String yaml =
        "apiVersion: web.bosun.dev/v1alpha1\nkind: WebService\nmetadata: {name: "
            + name
            + "}\nspec:\n"
            + specYaml.indent(2);
    return Serialization.unmarshal(yaml, WebService.class);
  }

  public static Ports port(String name, int port, Integer containerPort) {
    Ports p = new Ports();
    p.setName(name);
    p.setPort(port);
    p.setContainerPort(containerPort);
    return p;
  }
}
