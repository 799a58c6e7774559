package dev.bosun.mysql;

import dev.bosun.common.meta.Labels;

/** Names shared by every part of the MySQL operator. */
public final class MySQLOperator {

  /** Operator name: field manager, Event source, lease name and managed-by label value. */
  public static final String NAME = "bosun-mysql-operator";

  /** The label selector of every informer on the objects this operator creates. */
  public static final String MANAGED_SELECTOR = Labels.MANAGED_BY + "=" + NAME;

  /** {@code app.kubernetes.io/name} of the objects created for a MySQLCluster. */
  public static final String APP = "mysql";

  /** {@code app.kubernetes.io/component} of the database pods. */
  public static final String COMPONENT = "database";

  /** The pod label that says who is the primary; the primary and replicas Services select it. */
  public static final String ROLE = "mysql.bosun.dev/role";

  /** Values of {@link #ROLE}. */
  public static final String PRIMARY = "primary";

  public static final String REPLICA = "replica";

  /** Annotation holding the hash of what the operator last applied (idle = no writes). */
  public static final String APPLIED_HASH = "mysql.bosun.dev/applied-hash";

  /**
   * The user every Job on a cluster's data (restore load, rebuild copy) runs as: the official
   * server images' mysql user.
   */
  public static final long JOB_USER = 999;

  /** The server container's name. */
  public static final String CONTAINER = "mysql";

  /** The environment variable naming the operator's own image (restore Jobs fetch with it). */
  public static final String OPERATOR_IMAGE_ENV = "BOSUN_OPERATOR_IMAGE";

  /** The image restore Jobs fetch with when the chart does not say. */
  public static final String DEFAULT_OPERATOR_IMAGE = "bosun/mysql-operator:0.1.0";

  private MySQLOperator() {}
}
