package dev.bosun.mysql.reconciler;

import dev.bosun.common.admission.AdmissionRules;
import dev.bosun.mysql.model.ClusterModel;
import dev.bosun.mysql.v1alpha1.MySQLCluster;
import java.util.List;

/**
 * The admission webhook's rules for MySQLClusters: the reconciler's own {@link ClusterValidator},
 * so a spec is refused at apply time with the message {@code InvalidSpec} would carry, and a change
 * is judged against what the stored object's status says the cluster runs.
 */
public final class ClusterAdmission implements AdmissionRules<MySQLCluster> {

  /** The route the webhook configuration sends MySQLCluster reviews to. */
  public static final String PATH = "/validate/mysqlclusters";

  @Override
  public List<String> problems(MySQLCluster object, MySQLCluster old) {
    return ClusterValidator.validate(ClusterModel.of(object), old == null ? null : old.getStatus());
  }
}
