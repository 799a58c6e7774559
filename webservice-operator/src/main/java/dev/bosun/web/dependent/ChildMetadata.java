package dev.bosun.web.dependent;

import static dev.bosun.web.WebServiceOperator.APP;
import static dev.bosun.web.WebServiceOperator.COMPONENT;

import dev.bosun.common.meta.Labels;
import dev.bosun.web.WebServiceOperator;
import dev.bosun.web.v1alpha1.WebService;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;

/** Name, namespace and labels shared by every object created for a WebService. */
final class ChildMetadata {

  private ChildMetadata() {}

  /** Metadata of the child named after the WebService, carrying the full Bosun label set. */
  static ObjectMeta of(WebService ws) {
    return builder(ws).build();
  }

  /** The same, to add annotations to. */
  static ObjectMetaBuilder builder(WebService ws) {
    return new ObjectMetaBuilder()
        .withName(ws.getMetadata().getName())
        .withNamespace(ws.getMetadata().getNamespace())
        .withLabels(Labels.of(ws, APP, COMPONENT, WebServiceOperator.NAME));
  }
}
