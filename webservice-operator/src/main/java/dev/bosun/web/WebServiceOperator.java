package dev.bosun.web;

import dev.bosun.common.meta.Labels;

/** Names shared by every part of the WebService operator. */
public final class WebServiceOperator {

  /** Operator name: field manager, Event source, lease name and managed-by label value. */
  public static final String NAME = "bosun-webservice-operator";

  /** The label selector of every informer on the objects this operator creates. */
  public static final String MANAGED_SELECTOR = Labels.MANAGED_BY + "=" + NAME;

  /** {@code app.kubernetes.io/name} of the objects created for a WebService. */
  public static final String APP = "webservice";

  /** {@code app.kubernetes.io/component} of those objects. */
  public static final String COMPONENT = "server";

  /**
   * Annotation on the Deployment naming the WebService generation it was built from: a Deployment
   * read from a cache that has not seen the latest apply cannot be mistaken for a finished rollout.
   */
  public static final String SPEC_GENERATION = "web.bosun.dev/spec-generation";

  /** The container's name in the pod template. */
  public static final String CONTAINER = "app";

  private WebServiceOperator() {}
}
