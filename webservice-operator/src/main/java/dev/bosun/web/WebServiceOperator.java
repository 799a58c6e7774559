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

  /** Annotation of the objects written through common's applier: what was last applied. */
  public static final String APPLIED_HASH = "web.bosun.dev/applied-hash";

  /** Annotation on each Deployment: the revision (template hash) its Pod template is. */
  public static final String REVISION = "web.bosun.dev/revision";

  /** Pod label of the canary's Pods, and part of the canary Deployment's selector. */
  public static final String TRACK = "web.bosun.dev/track";

  /**
   * Annotation a user sets to promote or abort a gray release: {@code promote} or {@code abort}.
   */
  public static final String ROLLOUT_ACTION = "web.bosun.dev/rollout-action";

  /** Appended to the WebService's name to name its canary Deployment. */
  public static final String CANARY_SUFFIX = "-canary";

  /** The container's name in the pod template. */
  public static final String CONTAINER = "app";

  private WebServiceOperator() {}
}
